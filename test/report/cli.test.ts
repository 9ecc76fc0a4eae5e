import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { cli, tempDir } from '../cli/helpers.js';

const FIXTURES = 'test/report/fixtures';
const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

function read(path: string): string {
  return readFileSync(path, 'utf8');
}

describe('reports written by the command line', () => {
  let out = '';
  beforeAll(async () => {
    out = tempDir();
    const r = await cli(['run', FIXTURES, '--out', out, '--workers', '2']);
    expect(r.code).toBe(0);
    expect(r.err).not.toMatch(/warning|error/);
    expect(r.out).toMatch(/written to .*report-occ-contention\nreport: .*report-occ-contention\/index\.html\n/);
  });

  it('`run` writes a self-contained index.html beside the results, with vega inlined', () => {
    for (const name of ['report-occ-contention', 'report-spike-layers', 'report-tick-clustering', 'report-single', 'report-parts']) {
      const html = read(join(out, name, 'index.html'));
      expect(html.startsWith('<!doctype html>')).toBe(true);
      expect(html).not.toMatch(/<script[^>]* src=/);
      expect(html).not.toContain('sourceMappingURL');
      expect(html).toContain('t.version="6.4.0"');
      const meta = JSON.parse(read(join(out, name, 'report.json'))) as { experiment: string; finding: string; runTimeMs: number; date: string; charts: string[] };
      expect(meta.experiment).toBe(name);
      expect(meta.finding.length).toBeGreaterThan(10);
      expect(meta.runTimeMs).toBeGreaterThanOrEqual(0);
      expect(meta.charts.length).toBeGreaterThan(0);
      for (const id of meta.charts) expect(html).toContain(`id="chart-${id}"`);
    }
  });

  it('`report DIR` rebuilds the same page from the saved results without running anything', async () => {
    const dir = join(out, 'report-occ-contention');
    const before = read(join(dir, 'index.html'));
    rmSync(join(dir, 'index.html'));
    const r = await cli(['report', dir]);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^report written to .*report-occ-contention\/index\.html\n$/);
    expect(read(join(dir, 'index.html'))).toBe(before);
  });

  it('`report DIR --png` also writes every chart as a PNG', async () => {
    const dir = join(out, 'report-spike-layers');
    const r = await cli(['report', dir, '--png']);
    expect(r.code).toBe(0);
    const ids = (JSON.parse(read(join(dir, 'report.json'))) as { charts: string[] }).charts;
    expect(readdirSync(join(dir, 'png')).sort()).toEqual(ids.map((id) => `${id}.png`).sort());
    for (const id of ids) {
      const png = readFileSync(join(dir, 'png', `${id}.png`));
      expect([...png.subarray(0, 8)]).toEqual(PNG_SIGNATURE);
      expect(png.readUInt32BE(16)).toBeGreaterThan(400); // width
      expect(png.length).toBeGreaterThan(10_000);
    }
  });

  it('`report PARENT --shared-assets` rebuilds every experiment with one copy of the bundles, and an index', async () => {
    const parent = tempDir();
    for (const name of ['report-occ-contention', 'report-single']) cpSync(join(out, name), join(parent, name), { recursive: true });
    const r = await cli(['report', parent, '--shared-assets']);
    expect(r.code).toBe(0);
    expect(readdirSync(join(parent, 'assets')).sort()).toEqual(['vega-embed.min.js', 'vega-lite.min.js', 'vega.min.js']);
    for (const f of readdirSync(join(parent, 'assets'))) expect(read(join(parent, 'assets', f))).not.toContain('sourceMappingURL');
    const html = read(join(parent, 'report-single', 'index.html'));
    expect(html).toContain('<script src="../assets/vega.min.js"></script>');
    expect(html.length).toBeLessThan(200_000);
    const index = read(join(parent, 'index.html'));
    expect(index).toContain('<a href="report-occ-contention/index.html">report-occ-contention</a>');
    expect(index).toContain('<a href="report-single/index.html">report-single</a>');
    const finding = (JSON.parse(read(join(parent, 'report-single', 'report.json'))) as { finding: string }).finding;
    expect(index).toContain(finding);
  });

  it('`report` builds from a lone results.json, taking the scenario from run.json', async () => {
    const dir = join(tempDir(), 'only-results');
    mkdirSync(dir);
    for (const f of ['results.json', 'run.json']) cpSync(join(out, 'report-single', f), join(dir, f));
    const r = await cli(['report', dir]);
    expect(r.code).toBe(0);
    const html = read(join(dir, 'index.html'));
    expect(html).toContain('<h1 id="experiment-name">report-single</h1>');
    expect(html).toContain('faults: 500 to 30% of requests');
  });

  it('warns about report hints it cannot use, naming the field, and draws the default charts', async () => {
    const dir = join(tempDir(), 'hinted');
    cpSync(join(out, 'report-single'), dir, { recursive: true });
    const run = JSON.parse(read(join(dir, 'run.json'))) as { source: string };
    const source = JSON.parse(run.source) as Record<string, unknown>;
    source.report = { charts: [{ kind: 'metric', metric: 'latency' }] };
    writeFileSync(join(dir, 'run.json'), JSON.stringify({ ...run, source: JSON.stringify(source) }));
    const r = await cli(['report', dir]);
    expect(r.code).toBe(0);
    expect(r.err).toMatch(/^warning: report hint ignored: report\.charts\.0\.metric must be one of amplification, .* \(got "latency"\)\n$/);
  });

  it('`report` on a directory without results says so (exit code 2)', async () => {
    const r = await cli(['report', tempDir()]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/^error: .* holds no experiment results \(summary\.json, results\.json or risk\.json\), nor directories that do\n$/);
    const missing = await cli(['report', join(tempDir(), 'nope')]);
    expect(missing.code).toBe(2);
    expect(missing.err).toMatch(/no such directory/);
  });

  it('a report that cannot be written is an error (exit code 1), and the results stay', async () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'report-single', 'index.html'), { recursive: true });
    const r = await cli(['run', join(FIXTURES, 'single.json'), '--out', dir, '--quiet']);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/^error: report-single: the report was not written \(.*\); the results are saved, run `retrystorm report .*report-single` to try again\n$/);
    expect(existsSync(join(dir, 'report-single', 'summary.json'))).toBe(true);
  });

    it('a shard writes no report (it holds only part of the cells)', async () => {
    const dir = tempDir();
    const r = await cli(['run', join(FIXTURES, 'tick-clustering.json'), '--out', dir, '--shard', '0/2', '--quiet']);
    expect(r.code).toBe(0);
    expect(existsSync(join(dir, 'report-tick-clustering', 'summary.json'))).toBe(true);
    expect(existsSync(join(dir, 'report-tick-clustering', 'index.html'))).toBe(false);
  });

  it('`run-all` writes the reports with shared bundles, the bundles once, and reports/index.html', async () => {
    const dir = tempDir();
    const r = await cli(['run-all', '--dir', FIXTURES, '--out', dir, '--quiet', '--workers', '2']);
    expect(r.code).toBe(0);
    expect(readdirSync(join(dir, 'assets')).sort()).toEqual(['vega-embed.min.js', 'vega-lite.min.js', 'vega.min.js']);
    const index = read(join(dir, 'index.html'));
    for (const name of ['report-occ-contention', 'report-parts', 'report-single', 'report-spike-layers', 'report-tick-clustering']) {
      expect(index).toContain(`<a href="${name}/index.html">${name}</a>`);
      expect(read(join(dir, name, 'index.html'))).toContain('<script src="../assets/vega-embed.min.js"></script>');
    }
  });
});
