#!/usr/bin/env node
import { runCli } from './cli.js';
import { InterruptHandlers } from './interrupts.js';

const interrupts = new InterruptHandlers(
  process,
  (code) => process.exit(code),
  (text) => process.stderr.write(text),
);

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
  onInterrupt: (handler) => interrupts.install(handler),
}).then(
  (code) => {
    process.exitCode = code;
  },
  (e: unknown) => {
    process.stderr.write(`internal error: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    process.exitCode = 1;
  },
);
