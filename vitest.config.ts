import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // One test file per core (vitest's default leaves one core to its main thread, which on 2 cores
    // runs the files one at a time while most of the suite is single-threaded simulation).
    maxWorkers: Math.max(2, availableParallelism()),
  },
});
