import { parseJson } from './parseJson.js';
import { ValidationError } from './ValidationError.js';

/**
 * Parses a `--set path=value` argument: the path is everything before the first `=` (a dotted
 * path from the file's root, e.g. `scenario.workload.clients`); the value is parsed as JSON when
 * it parses (`5`, `true`, `[10, 20]`, `{"kind": "none"}`), otherwise taken as a string
 * (`full-jitter`). Throws a ValidationError without `=` or with an empty path, or with a value nested
 * deeper than the files' limit (`MAX_NESTING`, read by the same `parseJson`) or JSON that repeats a
 * key in one object (refused as in files, not taken as a string).
 */
export function parseSetArg(arg: string): [string, unknown] {
  const eq = arg.indexOf('=');
  if (eq < 0) throw new ValidationError([`--set expects path=value (got ${JSON.stringify(arg)})`]);
  const path = arg.slice(0, eq).trim();
  if (path === '') throw new ValidationError([`--set expects path=value, the path is empty (got ${JSON.stringify(arg)})`]);
  const text = arg.slice(eq + 1);
  const parsed = parseJson(text, `--set ${path}`);
  if (parsed.ok) return [path, parsed.value];
  if (parsed.tooDeep === true || parsed.duplicateKey === true) throw new ValidationError([parsed.error]);
  return [path, text];
}
