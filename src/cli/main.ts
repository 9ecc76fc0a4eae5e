#!/usr/bin/env node
import { runCli } from './cli.js';

// A reader that closes the pipe early (`retrystorm schema | head`) ends the output, not the program:
// the rest of what would have been printed is dropped, and files being written are finished.
let stdoutClosed = false;
process.stdout.on('error', (e: NodeJS.ErrnoException) => {
  if (e.code !== 'EPIPE') throw e;
  stdoutClosed = true;
});

runCli(process.argv.slice(2), {
  stdout: (s) => {
    if (!stdoutClosed) process.stdout.write(s);
  },
  stderr: (s) => process.stderr.write(s),
  cwd: process.cwd(),
  isTTY: process.stderr.isTTY === true,
  onInterrupt(handler) {
    const on = () => handler();
    process.on('SIGINT', on);
    process.on('SIGTERM', on);
    return () => {
      process.off('SIGINT', on);
      process.off('SIGTERM', on);
    };
  },
}).then(
  (code) => {
    process.exitCode = code;
  },
  (e: unknown) => {
    process.stderr.write(`internal error: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    process.exitCode = 1;
  },
);
