import { setFlagsFromString } from 'node:v8';

/**
 * V8 options the command line sets before it simulates: a larger inlining budget. The model's hot
 * path is a chain of a dozen small methods per event (a layer's retry decision, the leaf, the
 * metrics); with V8's default budget (460 bytes of bytecode per function, 920 inlined into one
 * caller) most of them stay separate calls. Measured on M/M/1 through the model (bench/, see
 * docs/performance.md): about 1.2x to 1.35x the operations per CPU-second, the storm 1.1x, the
 * aws-contention sweep unchanged. They change no result. A program that uses the library can pass
 * the same options to node (`node --max-inlined-bytecode-size=700 ...`).
 */
export const V8_FLAGS = ['--max-inlined-bytecode-size=700', '--max-inlined-bytecode-size-cumulative=3000'] as const;

/** Apply {@link V8_FLAGS} to this process (worker threads started afterwards share them). */
export function tuneV8(): void {
  for (const f of V8_FLAGS) setFlagsFromString(f);
}
