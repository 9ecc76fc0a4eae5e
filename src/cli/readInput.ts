import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, join, normalize, resolve } from 'node:path';
import { CheckInputError, hasStackImports, resolveExperimentImports, type ImportReader } from '../check/index.js';
import { parseJson } from '../experiment/index.js';

/** Why a file cannot be read, in a few words (`no such file`, `is a directory`). */
function whyUnreadable(e: unknown): string {
  const code = (e as NodeJS.ErrnoException).code;
  return code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'is a directory' : (e as Error).message;
}

/** The text of a file, or a CheckInputError `<shown>: cannot read (<why>)`. */
export function readInputText(path: string, shown: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (e) {
    throw new CheckInputError([`${shown}: cannot read (${whyUnreadable(e)})`]);
  }
}

/**
 * Reads the files a stack or experiment file's `import` entries name: a relative path is relative
 * to that file (`file`, as shown in messages, itself relative to `cwd`), and each is named in
 * messages as the path from `cwd` (or as written, when absolute).
 */
export function importReader(file: string, cwd: string): ImportReader {
  return (imported: string) => {
    const shown = isAbsolute(imported) ? imported : normalize(join(dirname(file), imported));
    return { source: shown, text: readInputText(resolve(cwd, shown), shown) };
  };
}

/**
 * The text of an experiment file as the simulator runs it: the file's own text, or, when layers of
 * its `scenario.stack` (or a part's) `import` a real configuration, the file with those layers
 * resolved (JSON, so that a run's manifest, resume and reports need no other file). Every problem:
 * `{ ok: false, errors }`, each naming the file and the dotted path.
 */
export function readExperimentText(path: string): { ok: true; text: string } | { ok: false; errors: string[] } {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    return { ok: false, errors: [`${path}: cannot read (${whyUnreadable(e)})`] };
  }
  const json = parseJson(text, path);
  if (!json.ok || !hasStackImports(json.value)) return { ok: true, text };
  try {
    const resolved = resolveExperimentImports(json.value, path, importReader(path, process.cwd()));
    return { ok: true, text: JSON.stringify(resolved.root, null, 2) + '\n' };
  } catch (e) {
    if (!(e instanceof CheckInputError)) throw e;
    return { ok: false, errors: e.problems };
  }
}
