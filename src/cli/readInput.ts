// Reading the files the command line takes as input: experiment files, stack files and the
// configurations their layers import. Every read is bounded (MAX_INPUT_BYTES), and an import may
// not leave the directory of the file that names it unless the user allows it.
import { closeSync, fstatSync, openSync, readSync, realpathSync } from 'node:fs';
import { dirname, isAbsolute, join, normalize, relative, resolve, sep } from 'node:path';
import { CheckInputError, hasStackImports, resolveExperimentImports, type ImportReader } from '../check/index.js';
import { parseJson } from '../experiment/index.js';
import { describeValue } from '../policy/schema/describeValue.js';
import { formatCount } from '../policy/groupThousands.js';
import { fsErrorWords, shownPath } from '../sweep/fileErrors.js';

/**
 * The largest input file the command line reads, in bytes (4 MiB): experiment files, stack files
 * and imported configurations. The largest shipped experiment is under 30 kB and a real retry
 * configuration a few kB, so this leaves a hundred times the room; above it, a file is refused
 * before it is read, because parsing takes time and memory that grow faster than the file (a
 * 10 MB YAML file took half a minute and 50 MB exhausted the heap).
 */
export const MAX_INPUT_BYTES = 4 * 1024 * 1024;

/** The option that lets an experiment or stack file import files from outside its own directory. */
export const ALLOW_IMPORTS_OUTSIDE = '--allow-imports-outside';

/** The help text of {@link ALLOW_IMPORTS_OUTSIDE}, as every command that reads imports declares it. */
export const ALLOW_IMPORTS_OUTSIDE_HELP = "let a layer's import name a file outside the directory of the file that names it (by default refused, symbolic links followed)";

/** How a file is read: whether its imports may leave its directory. */
export interface ReadOptions {
  /** Let an `import.file` name a file outside the importing file's directory ({@link ALLOW_IMPORTS_OUTSIDE}). */
  allowImportsOutside?: boolean;
}

const READ_CHUNK_BYTES = 64 * 1024;

function tooLarge(shown: string, size: string): CheckInputError {
  return new CheckInputError([
    `${shownPath(shown)}: is ${size} bytes, over the limit of ${formatCount(MAX_INPUT_BYTES)} bytes (${MAX_INPUT_BYTES / 1024 / 1024} MiB) of an input file`,
  ]);
}

/**
 * The text of an input file, or a CheckInputError `<shown>: cannot read (<why in a few words>)`.
 * A file over {@link MAX_INPUT_BYTES} is refused by its size before anything is read, and a pipe
 * or device that goes on past the limit is refused when it passes it.
 */
export function readInputText(path: string, shown: string): string {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (e) {
    throw new CheckInputError([`${shownPath(shown)}: cannot read (${fsErrorWords(e)})`]);
  }
  try {
    const stat = fstatSync(fd);
    if (stat.isDirectory()) throw new CheckInputError([`${shownPath(shown)}: cannot read (is a directory)`]);
    if (stat.isFile() && stat.size > MAX_INPUT_BYTES) throw tooLarge(shown, formatCount(stat.size));
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const chunk = Buffer.allocUnsafe(READ_CHUNK_BYTES);
      const n = readSync(fd, chunk, 0, chunk.length, null);
      if (n === 0) break;
      total += n;
      if (total > MAX_INPUT_BYTES) throw tooLarge(shown, `more than ${formatCount(MAX_INPUT_BYTES)}`);
      chunks.push(n === chunk.length ? chunk : chunk.subarray(0, n));
    }
    return Buffer.concat(chunks, total).toString('utf8');
  } catch (e) {
    if (e instanceof CheckInputError) throw e;
    throw new CheckInputError([`${shownPath(shown)}: cannot read (${fsErrorWords(e)})`]);
  } finally {
    closeSync(fd);
  }
}

/** Whether `path` is `dir` or inside it (both real paths). */
function isInside(dir: string, path: string): boolean {
  const rel = relative(dir, path);
  return rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel);
}

/**
 * Reads the files a stack or experiment file's `import` entries name: a relative path is relative
 * to that file (`file`, as shown in messages, itself relative to `cwd`), and each is named in
 * messages as the path from `cwd` (or as written, when absolute). Unless `allowImportsOutside`, a
 * file whose real path (symbolic links followed) is outside the real directory of `file` is
 * refused, naming the rule and the option that allows it. `onRead` hears the real path of each
 * file read.
 */
export function importReader(file: string, cwd: string, options: ReadOptions = {}, onRead?: (realPath: string) => void): ImportReader {
  return (imported: string) => {
    const shown = isAbsolute(imported) ? imported : normalize(join(dirname(file), imported));
    const target = resolve(cwd, shown);
    let real: string;
    try {
      real = realpathSync(target);
    } catch (e) {
      throw new CheckInputError([`${shownPath(shown)}: cannot read (${fsErrorWords(e)})`]);
    }
    if (options.allowImportsOutside !== true) {
      const dir = realpathSync(dirname(resolve(cwd, file)));
      if (!isInside(dir, real)) {
        throw new CheckInputError([
          `${describeValue(imported)} is outside the directory of ${shownPath(file)} (it leads to ${shownPath(real)}): an imported file must be in that directory or below it, symbolic links followed; ${ALLOW_IMPORTS_OUTSIDE} allows it`,
        ]);
      }
    }
    onRead?.(real);
    return { source: shown, text: readInputText(real, shown) };
  };
}

/**
 * The text of an experiment file as the simulator runs it: the file's own text, or, when layers of
 * its `scenario.stack` (or a part's) `import` a real configuration, the file with those layers
 * resolved (JSON, so that a run's manifest, resume and reports need no other file). Every problem:
 * `{ ok: false, errors }`, each naming the file and the dotted path.
 */
export function readExperimentText(path: string, options: ReadOptions = {}): { ok: true; text: string } | { ok: false; errors: string[] } {
  try {
    const text = readInputText(path, path);
    const json = parseJson(text, path);
    if (!json.ok || !hasStackImports(json.value)) return { ok: true, text };
    const resolved = resolveExperimentImports(json.value, path, importReader(path, process.cwd(), options));
    return { ok: true, text: JSON.stringify(resolved.root, null, 2) + '\n' };
  } catch (e) {
    if (!(e instanceof CheckInputError)) throw e;
    return { ok: false, errors: e.problems };
  }
}
