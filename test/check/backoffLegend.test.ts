import { describe, expect, it } from 'vitest';
import { checkStack, formatCheckReport, loadStacks } from '../../src/check/index.js';
import { fixture } from './helpers.js';

/** The lines of check's report from the layers' table header up to the blank line after it. */
function layerTable(name: string): string[] {
  const [stack] = loadStacks(fixture(name), name);
  const lines = formatCheckReport(checkStack(stack!)).split('\n');
  const start = lines.findIndex((l) => l.startsWith('layer '));
  return lines.slice(start, lines.indexOf('', start));
}

describe("check's layers table", () => {
  it('explains under the table each notation its backoff column uses, and only those', () => {
    const grpc = layerTable('grpc-go-style.json');
    expect(grpc.find((l) => l.startsWith('grpc '))).toContain('10 ms x 3^(r-1) +/-20%, interval cap 500 ms');
    expect(grpc.slice(3).join('\n')).toBe("backoff: r: the retry's number (1 for the first); +/-p: each wait drawn up to p away from its value.");
    const envoy = layerTable('envoy-camel.json');
    expect(envoy.slice(3).join('\n')).toBe(
      "backoff: U[a, b): a draw uniform from a up to b; r: the retry's number (1 for the first).",
    );
  });
});
