import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { reportCommand, TUNE_FILE } from '../../src/cli/report.js';

/** A reports directory holding one search's output (tune.json and its page), as `run-all` leaves it. */
function reportsWithSearch(answer: Record<string, unknown>): string {
  const root = mkdtempSync(join(tmpdir(), 'retrystorm-report-tune-'));
  const dir = join(root, 'tune-x');
  mkdirSync(dir);
  writeFileSync(join(dir, TUNE_FILE), JSON.stringify(answer));
  writeFileSync(join(dir, 'index.html'), '<html>the search page</html>');
  return root;
}

function io(cwd: string) {
  const out: string[] = [];
  const err: string[] = [];
  return { io: { stdout: (s: string) => out.push(s), stderr: (s: string) => err.push(s), cwd }, out, err };
}

describe('report DIR with a search in it', () => {
  it("lists the search in the index, from its tune.json, and keeps the search's own page", async () => {
    const root = reportsWithSearch({ experiment: 'tune-x', description: 'Which SDK policy.', headline: 'Recommended grpc.' });
    const t = io(root);
    expect(await reportCommand(t.io, '.', { png: false, sharedAssets: false })).toBe(0);
    const index = readFileSync(join(root, 'index.html'), 'utf8');
    expect(index).toContain('href="tune-x/index.html"');
    expect(index).toContain('Recommended grpc.');
    expect(index).toContain('Which SDK policy.');
    expect(readFileSync(join(root, 'tune-x', 'index.html'), 'utf8')).toBe('<html>the search page</html>');
  });

  it('names the field of a tune.json it cannot read, exits 2 and leaves the search out', async () => {
    const root = reportsWithSearch({ experiment: 'tune-x', headline: 42 });
    const t = io(root);
    expect(await reportCommand(t.io, '.', { png: false, sharedAssets: false })).toBe(2);
    expect(t.err.join('')).toContain('tune.json: headline must be a string');
    expect(readFileSync(join(root, 'index.html'), 'utf8')).not.toContain('tune-x/index.html');
  });
});
