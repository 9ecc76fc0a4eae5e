import { lstatSync, mkdirSync, realpathSync, renameSync, rmSync, writeFileSync, type Stats } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fsErrorWords, isFsError, shownPath } from '../sweep/fileErrors.js';
import { UsageError } from './io.js';

/** What a file that is not a regular file is, in a few words (`is a symbolic link`, `is a FIFO`). */
export function describeFileKind(stat: Stats): string {
  if (stat.isSymbolicLink()) return 'is a symbolic link';
  if (stat.isFIFO()) return 'is a FIFO (named pipe)';
  if (stat.isCharacterDevice()) return 'is a character device';
  if (stat.isBlockDevice()) return 'is a block device';
  if (stat.isSocket()) return 'is a socket';
  if (stat.isDirectory()) return 'is a directory';
  return 'is not a regular file';
}

/** How a write names its destination in messages: `--out x.yaml`, or the path alone by default. */
export interface WriteTarget {
  /** The option or argument that named the file (`--out`), shown before the path. */
  option?: string;
  /** The path as the user wrote it (default: `path`). */
  shown?: string;
  /** Files the command read (their paths, real or not): writing over one of them is refused. */
  inputs?: readonly string[];
}

function realOrNull(path: string): string | null {
  try {
    return realpathSync(path);
  } catch {
    return null;
  }
}

/**
 * Write a file atomically: to a temporary name in the same directory, then rename, so no reader
 * ever sees half a file; the temporary file is removed when anything fails. Only a regular file
 * (or nothing) is replaced: a symbolic link, a FIFO, a device or a socket at `path` is refused, as
 * is a path that is one of `target.inputs` (compared by real path). Every failure is a UsageError
 * naming the option and the user's path and saying what is wrong in a few words (never the
 * temporary file's name).
 */
export function writeFileAtomic(path: string, data: string | Uint8Array, target: WriteTarget = {}): void {
  const named = `${target.option !== undefined ? `${target.option} ` : ''}${shownPath(target.shown ?? path)}`;
  let existing: Stats | undefined;
  try {
    existing = lstatSync(path);
  } catch (e) {
    if (!isFsError(e) || e.code !== 'ENOENT') throw new UsageError([`cannot write ${named}: ${fsErrorWords(e)}`]);
  }
  if (existing !== undefined && !existing.isFile()) {
    throw new UsageError([`cannot write ${named}: it ${describeFileKind(existing)}, and only a regular file is replaced (remove it or write elsewhere)`]);
  }
  if (existing !== undefined && target.inputs !== undefined) {
    const real = realOrNull(path);
    const input = target.inputs.find((p) => real !== null && realOrNull(resolve(p)) === real);
    if (input !== undefined) throw new UsageError([`cannot write ${named}: it is the input file ${shownPath(input)}; write elsewhere`]);
  }
  const tmp = `${path}.tmp-${process.pid}`;
  try {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(tmp, data);
    renameSync(tmp, path);
  } catch (e) {
    try {
      rmSync(tmp, { force: true });
    } catch {
      /* the temporary file could not be made (a name too long) or is gone */
    }
    if (!isFsError(e)) throw e;
    throw new UsageError([`cannot write ${named}: ${fsErrorWords(e)}`]);
  }
}
