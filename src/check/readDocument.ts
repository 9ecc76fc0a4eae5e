import { parseDocument } from 'yaml';
import { parseJson } from '../experiment/parseJson.js';
import { CheckInputError } from './CheckInputError.js';

/** Whether a file is read as JSON: by its name (`.json`), or, without a telling extension, by a leading `{` or `[`. */
export function looksLikeJson(text: string, source: string): boolean {
  if (/\.json$/i.test(source)) return true;
  if (/\.ya?ml$/i.test(source)) return false;
  return /^\s*[{[]/.test(text);
}

/**
 * The value of a JSON or YAML document (JSON for `.json` files; YAML 1.2, a superset of JSON,
 * otherwise). Syntax errors throw a CheckInputError naming the file, the line and the column:
 * `route.yaml: invalid YAML at line 3, column 1: ...`.
 */
export function readDocument(text: string, source: string): unknown {
  if (looksLikeJson(text, source)) {
    const json = parseJson(text, source);
    if (!json.ok) throw new CheckInputError([json.error]);
    return json.value;
  }
  const doc = parseDocument(text, { prettyErrors: true, uniqueKeys: true });
  const error = doc.errors[0];
  if (error !== undefined) {
    const pos = error.linePos?.[0];
    const where = pos === undefined ? '' : ` at line ${pos.line}, column ${pos.col}`;
    const reason = error.message.split('\n')[0]?.replace(/ at line \d+, column \d+:?$/, '') ?? error.message;
    throw new CheckInputError([`${source}: invalid YAML${where}: ${reason}`]);
  }
  return doc.toJS({ maxAliasCount: 1000 }) as unknown;
}
