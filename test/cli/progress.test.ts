import { describe, expect, it } from 'vitest';
import { ProgressReporter } from '../../src/cli/progress.js';

/** A single run shows no bar; when it lasts, a line says it is still running, so long work is never silent. */
describe('progress of a run that shows no bar', () => {
  function reporter(heartbeatMs: number): { p: ProgressReporter; lines: string[] } {
    const lines: string[] = [];
    const io = { stdout: () => {}, stderr: (s: string) => lines.push(s), cwd: '.', isTTY: false };
    return { p: new ProgressReporter(io, 'warm-cache', 5000, heartbeatMs), lines };
  }

  it('says "still running" every heartbeat until the run ends, then nothing more', async () => {
    const { p, lines } = reporter(40);
    p.update({ done: 0, total: 1, errored: 0, resumed: 0 });
    await new Promise((r) => setTimeout(r, 150));
    const during = lines.length;
    expect(during).toBeGreaterThanOrEqual(2);
    for (const l of lines) expect(l).toMatch(/^warm-cache: still running, \d+ ms\n$/);
    p.update({ done: 1, total: 1, errored: 0, resumed: 0 });
    p.stop();
    await new Promise((r) => setTimeout(r, 120));
    expect(lines.length).toBeLessThanOrEqual(during + 1);
  });

  it('a run that ends before the first heartbeat prints nothing', async () => {
    const { p, lines } = reporter(200);
    p.update({ done: 0, total: 1, errored: 0, resumed: 0 });
    p.update({ done: 1, total: 1, errored: 0, resumed: 0 });
    p.stop();
    await new Promise((r) => setTimeout(r, 300));
    expect(lines).toEqual([]);
  });
});
