// How a failed file operation is told to people: what went wrong in a few words, and the user's
// path, shortened when it is absurdly long. Shared by everything that reads or writes files (the
// command line here and there; the sweep's result files may use it too). No I/O of its own.
import { formatCount } from '../policy/groupThousands.js';

/** The longest path a message shows whole; a longer one shows its first and last {@link PATH_END_CHARS} characters. */
export const MAX_SHOWN_PATH_CHARS = 160;

/** How many characters of each end of a path too long to show whole a message keeps. */
export const PATH_END_CHARS = 60;

/**
 * A path as messages show it: whole up to {@link MAX_SHOWN_PATH_CHARS} characters, else its first
 * and last {@link PATH_END_CHARS} characters around `...` and its length, so that a name of 10,000
 * characters makes a message of a line, not of 20 kB.
 */
export function shownPath(path: string): string {
  if (path.length <= MAX_SHOWN_PATH_CHARS) return path;
  return `${path.slice(0, PATH_END_CHARS)}...${path.slice(-PATH_END_CHARS)} (a path of ${formatCount(path.length)} characters)`;
}

/** The words of the error codes a file operation meets (as the C library's strerror says them, shortened). */
const FS_ERROR_WORDS: Readonly<Record<string, string>> = {
  ENOENT: 'no such file',
  EISDIR: 'is a directory',
  ENOTDIR: 'a part of the path is not a directory',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  ENAMETOOLONG: 'the file name is too long',
  ELOOP: 'too many levels of symbolic links',
  EROFS: 'read-only file system',
  ENOSPC: 'no space left on the device',
  EDQUOT: 'disk quota exceeded',
  EFBIG: 'the file is too large',
  EEXIST: 'a file is in the way',
  EBUSY: 'the file is busy',
  ETXTBSY: 'the file is busy',
  EXDEV: 'the temporary file is on another file system',
  EMFILE: 'too many open files',
  ENFILE: 'too many open files',
  EIO: 'input/output error',
  ENXIO: 'no such device',
  ENODEV: 'no such device',
  EINVAL: 'invalid argument',
  EAGAIN: 'resource temporarily unavailable',
};

/** Whether an error is one of a file operation (it carries an errno code such as `ENOENT`). */
export function isFsError(e: unknown): e is NodeJS.ErrnoException {
  const code = (e as NodeJS.ErrnoException | null)?.code;
  return typeof code === 'string' && /^(E[A-Z0-9]+|ERR_FS_[A-Z_]+)$/.test(code);
}

/**
 * What a file operation's error says, in a few words (`no such file or directory`, `read-only file
 * system`), never Node's message, which repeats the path (and names temporary files).
 */
export function fsErrorWords(e: unknown): string {
  if (!isFsError(e)) return 'an unexpected error';
  const code = e.code as string;
  return FS_ERROR_WORDS[code] ?? `error ${code}`;
}
