#!/usr/bin/env node
import { runCli } from './cli.js';
import { InterruptHandlers } from './interrupts.js';

const interrupts = new InterruptHandlers(
  process,
  (code) => process.exit(code),
  (text) => process.stderr.write(text),
);

runCli(process.argv.slice(2), {
  stdout: (s) => process.stdout.write(s),
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
