import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../../src/cli/cli.js';

/** Run the CLI in-process, capturing its output. */
export async function cli(args: string[], cwd = process.cwd()): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runCli(args, { stdout: (s) => (out += s), stderr: (s) => (err += s), cwd });
  return { code, out, err };
}

/** A fresh temporary directory. */
export function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'retrystorm-test-'));
}

/** Write an experiment object as a JSON file in `dir` and return its path. */
export function writeExperiment(dir: string, name: string, body: unknown): string {
  const p = join(dir, name);
  writeFileSync(p, typeof body === 'string' ? body : JSON.stringify(body, null, 2));
  return p;
}

/**
 * Run the CLI in-process and interrupt it (its Ctrl-C handler) once the file `lines` has more than
 * `after` lines, polled every `everyMs`: the exit code and what it wrote on stderr.
 */
export async function cliInterrupted(args: string[], cwd: string, lines: string, after: number, everyMs = 5): Promise<{ code: number; err: string }> {
  let interrupt: (() => void) | null = null;
  let err = '';
  const poll = setInterval(() => {
    if (interrupt && existsSync(lines) && readFileSync(lines, 'utf8').split('\n').length > after) interrupt();
  }, everyMs);
  const code = await runCli(args, {
    stdout: () => {},
    stderr: (s) => (err += s),
    cwd,
    onInterrupt: (handler) => {
      interrupt = handler;
      return () => (interrupt = null);
    },
  }).finally(() => clearInterval(poll));
  return { code, err };
}
