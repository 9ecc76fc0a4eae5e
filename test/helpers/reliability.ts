import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import { cli } from '../cli/helpers.js';

export { cli, cliInterrupted, tempDir, writeExperiment } from '../cli/helpers.js';

/** Root ignores file permissions, so tests of unreadable or read-only paths cannot run as root. */
export const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;

/** The user `nobody`, which root runs the command line as when permissions must apply. */
export const NOBODY = { uid: 65534, gid: 65534 };

/**
 * Whether permission checks can be exercised: not root, or root able to run the command line as
 * `nobody` (who must be able to read the project). Spawns a process when root; call it once per file.
 */
export function permissionsApply(): boolean {
  if (!isRoot) return true;
  const r = spawnSync(process.execPath, ['--import', 'tsx', '-e', "await import('./src/cli/cli.ts')"], { ...NOBODY, cwd: process.cwd(), encoding: 'utf8', timeout: 30_000 });
  return r.status === 0;
}

/**
 * Run the command line where file permissions apply: in-process when not root, otherwise as
 * `nobody` in a child process (the paths it uses must be accessible to that user).
 */
export async function cliUnprivileged(args: string[]): Promise<{ code: number | null; err: string }> {
  if (!isRoot) {
    const r = await cli(args);
    return { code: r.code, err: r.err };
  }
  const r = await spawnCli(args, { timeoutMs: 60_000, ...NOBODY });
  return { code: r.code, err: r.stderr };
}

/** A valid experiment: two clients, one layer of 2 attempts, a 5 ms server. */
export function validExperiment(): Record<string, any> {
  return {
    name: 'ok',
    scenario: {
      workload: { kind: 'burst', clients: 2 },
      stack: [{ name: 'client', policy: { maxAttempts: 2 } }],
      leaf: { kind: 'server', serviceMs: 5 },
    },
  };
}

/** A valid experiment with its scenario changed by `patch`. */
export function withScenario(patch: (s: Record<string, any>) => void): Record<string, any> {
  const e = validExperiment();
  patch(e.scenario);
  return e;
}

/** The lines of a results.jsonl, checking that the file ends with a complete line. */
export function jsonlRecords(path: string, text = readFileSync(path, 'utf8')): Array<Record<string, any>> {
  if (text.length > 0 && !text.endsWith('\n')) throw new Error(`${path} ends with a partial line`);
  return text
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Record<string, any>);
}

/**
 * The lines of a results.jsonl written by a process that was killed (SIGKILL): every line but the
 * last must be complete; the last may have been cut short, since the kernel does not make a write
 * to a file atomic against a kill (a write is copied page by page and a fatal signal stops it
 * between pages). `cut` is that unfinished last line ('' when the file ends with a newline).
 */
export function jsonlRecordsAfterKill(path: string): { records: Array<Record<string, any>>; cut: string } {
  const text = readFileSync(path, 'utf8');
  const end = text.lastIndexOf('\n') + 1;
  return { records: end === 0 ? [] : jsonlRecords(path, text.slice(0, end)), cut: text.slice(end) };
}

/** Files in `dir` (recursively) whose name marks them as temporary (`<name>.tmp-<number>`). */
export function leftoverTempFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => /\.tmp-\d+$/.test(f));
}

/** Outcome of a child process. */
export interface ChildResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  ms: number;
  timedOut: boolean;
}

/**
 * Run the command line from source in a child process (`node --import tsx src/cli/main.ts ...`),
 * killing it after `timeoutMs`. `nodeArgs` go before the script (e.g. a heap limit); `uid`/`gid`
 * run it as another user; `fileSizeLimitKb` caps the size of every file it writes.
 */
export function spawnCli(
  args: string[],
  opts: { timeoutMs: number; nodeArgs?: string[]; onStdout?: (s: string) => void; cwd?: string; uid?: number; gid?: number; fileSizeLimitKb?: number } = {
    timeoutMs: 60_000,
  },
): Promise<ChildResult> & { child: ReturnType<typeof spawn> } {
  const started = Date.now();
  // Under a file-size limit the built command runs (npm test builds first): tsx would write its
  // compile cache under the same limit and fail for reasons of its own.
  const entry =
    opts.fileSizeLimitKb !== undefined ? [join(process.cwd(), 'dist/cli/main.js')] : ['--import', 'tsx', join(process.cwd(), 'src/cli/main.ts')];
  const node = [process.execPath, ...(opts.nodeArgs ?? []), ...entry, ...args];
  // A file-size limit (bash's `ulimit -f`, in KiB) makes writes fail part-way, as on a full disk.
  const [command, ...argv] =
    opts.fileSizeLimitKb !== undefined ? ['bash', '-c', `ulimit -f ${opts.fileSizeLimitKb} && exec "$0" "$@"`, ...node] : node;
  const child = spawn(command as string, argv, {
    cwd: opts.cwd ?? process.cwd(),
    stdio: ['ignore', 'pipe', 'pipe'],
    ...(opts.uid !== undefined ? { uid: opts.uid } : {}),
    ...(opts.gid !== undefined ? { gid: opts.gid } : {}),
  });
  let stdout = '';
  let stderr = '';
  let timedOut = false;
  child.stdout.on('data', (d) => {
    stdout += String(d);
    opts.onStdout?.(String(d));
  });
  child.stderr.on('data', (d) => (stderr += String(d)));
  const timer = setTimeout(() => {
    timedOut = true;
    child.kill('SIGKILL');
  }, opts.timeoutMs);
  const done = new Promise<ChildResult>((resolve) => {
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr, ms: Date.now() - started, timedOut });
    });
  });
  return Object.assign(done, { child });
}
