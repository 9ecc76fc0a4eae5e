import { writeJsonChunks } from '../sweep/jsonStream.js';

/**
 * Print `JSON.stringify(value, null, 2)` and a newline through `out`, in pieces of about a megabyte
 * (src/sweep/jsonStream.ts): the same bytes as the one string, for results of any accepted size, also
 * those longer than the longest string V8 makes (`run --json`, `merge --json`).
 */
export function printJson(out: (text: string) => void, value: unknown): void {
  writeJsonChunks(value, out, { indent: 2, infiniteAsNull: true });
  out('\n');
}
