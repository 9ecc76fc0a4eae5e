import { closeSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { shownPath } from '../sweep/fileErrors.js';
import { describeFsError, OutputError } from '../sweep/ResultWriter.js';
import { UsageError } from './io.js';

/** What a lock file says about the process that holds it. */
interface LockHolder {
  pid: number;
  host: string;
  command: string;
  since: string;
}

/** The lock file of a directory: beside it (`.<name>.lock`), so that it stays put while the directory is replaced. */
export function lockPathOf(dir: string): string {
  return join(dirname(dir), `.${basename(dir)}.lock`);
}

function readHolder(path: string): LockHolder | null {
  try {
    const v = JSON.parse(readFileSync(path, 'utf8')) as Partial<LockHolder>;
    if (typeof v.pid === 'number' && typeof v.host === 'string') {
      return { pid: v.pid, host: v.host, command: typeof v.command === 'string' ? v.command : '?', since: typeof v.since === 'string' ? v.since : '?' };
    }
  } catch {
    /* unreadable or cut short: described as such below */
  }
  return null;
}

/** Whether a process of this machine with that pid is alive (a holder on another machine is taken as alive). */
function holderAlive(h: LockHolder): boolean {
  if (h.host !== hostname()) return true;
  try {
    process.kill(h.pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** A held lock: release it when the command is done with the directory. */
export interface DirLock {
  readonly path: string;
  release(): void;
}

/**
 * Take the lock of an output directory for one command (`run`, `tune`, `merge`, `report`), so that
 * two processes never write one directory at once: a second one would interleave its records with
 * the first's, or replace files the first is reading back. The lock is a file created exclusively
 * beside the directory, holding the pid, the host, the command and the time; a lock whose holder
 * is a dead process of this machine (a kill -9) is taken over. Otherwise a UsageError (exit code 2)
 * names the holder and the lock file; a directory whose lock cannot be written is an OutputError
 * like any unwritable output. `shown` is the directory as messages name it.
 */
export function lockDir(dir: string, shown: string, command: string): DirLock {
  const path = lockPathOf(dir);
  const me: LockHolder = { pid: process.pid, host: hostname(), command, since: new Date().toISOString() };
  const unwritable = (e: unknown) => new OutputError(`cannot write ${shownPath(dir)} (${describeFsError(e)})`);
  try {
    mkdirSync(dirname(path), { recursive: true });
  } catch (e) {
    throw unwritable(e);
  }
  for (let attempt = 0; attempt < 3; attempt++) {
    let fd: number;
    try {
      fd = openSync(path, 'wx');
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code !== 'EEXIST') throw unwritable(e);
      const holder = readHolder(path);
      if (holder !== null && !holderAlive(holder)) {
        // A stale lock: moved aside under a name of our own, so that two processes taking it over
        // at once cannot both remove it (the second finds the first's new lock).
        const aside = `${path}.stale-${process.pid}`;
        try {
          renameSync(path, aside);
          const moved = readHolder(aside);
          if (moved === null || moved.pid !== holder.pid || moved.since !== holder.since) renameSync(aside, path);
          else rmSync(aside, { force: true });
        } catch {
          /* another process moved it first: try again */
        }
        continue;
      }
      const who = holder === null
        ? 'another retrystorm (its lock file is unreadable)'
        : `another retrystorm (\`${holder.command}\`, pid ${holder.pid}${holder.host !== me.host ? ` on ${holder.host}` : ''}, since ${holder.since})`;
      throw new UsageError([
        `${shown} is in use by ${who}: wait for it to finish, or remove ${join(dirname(shown), basename(path))} if that process is gone`,
      ]);
    }
    try {
      writeSync(fd, JSON.stringify(me) + '\n');
    } finally {
      closeSync(fd);
    }
    let released = false;
    return {
      path,
      release() {
        if (released) return;
        released = true;
        // Only our own lock is removed (a lock taken over as stale after a pause is someone else's).
        const h = readHolder(path);
        if (h !== null && h.pid === me.pid && h.since === me.since && h.host === me.host) rmSync(path, { force: true });
      },
    };
  }
  throw new UsageError([`${shown}: cannot take the lock ${basename(path)} (it keeps changing hands)`]);
}
