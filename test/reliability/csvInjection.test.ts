import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { csvCell, summaryCsv } from '../../src/sweep/csv.js';
import type { SweepSummary } from '../../src/sweep/runPlan.js';
import { cli, tempDir, writeExperiment } from '../cli/helpers.js';

const EVIL = '=HYPERLINK("http://evil","x")';

/** The fields of one CSV line (RFC 4180: quoted fields, doubled quotes). */
function fields(line: string): string[] {
  const out: string[] = [];
  let i = 0;
  while (i <= line.length) {
    if (line[i] === '"') {
      let s = '';
      i++;
      for (;;) {
        if (line[i] === '"' && line[i + 1] === '"') {
          s += '"';
          i += 2;
        } else if (line[i] === '"') {
          i++;
          break;
        } else s += line[i++];
      }
      out.push(s);
      i++;
    } else {
      const end = line.indexOf(',', i);
      out.push(line.slice(i, end < 0 ? line.length : end));
      i = end < 0 ? line.length + 1 : end + 1;
    }
  }
  return out;
}

describe('CSV cells a spreadsheet could run as formulas', () => {
  it('turns text starting with =, +, -, @, tab or carriage return into quoted text with a leading quote', () => {
    expect(csvCell(EVIL)).toBe(`"'=HYPERLINK(""http://evil"",""x"")"`);
    expect(csvCell('+1+2')).toBe(`"'+1+2"`);
    expect(csvCell('-2+3')).toBe(`"'-2+3"`);
    expect(csvCell('@SUM(A1)')).toBe(`"'@SUM(A1)"`);
    expect(csvCell('\tx')).toBe(`"'\tx"`);
    expect(csvCell('\rx')).toBe(`"'\rx"`);
    expect(csvCell('full-jitter')).toBe('full-jitter');
  });

  it('keeps numbers, and text that is a plain number, as numbers', () => {
    expect(csvCell(-1.5)).toBe('-1.5');
    expect(csvCell(-2e-7)).toBe('-2e-7');
    expect(csvCell('-1.5')).toBe('-1.5');
    expect(csvCell('+3')).toBe('+3');
  });

  it('summary.csv keeps a negative parameter a number and a hostile variant name text', () => {
    const summary = {
      experiment: 'x',
      description: '',
      seed: 1,
      version: '0',
      cells: [
        {
          key: 'k',
          part: 'main',
          variant: EVIL,
          params: { 'leaf.offset': -1.5 },
          state: 'ok',
          replications: 1,
          errors: [],
          metrics: { amplification: { n: 1, mean: -0.25, sd: 0, ci95: [-0.5, 0] } },
        },
      ],
    } as unknown as SweepSummary;
    const [header, row] = summaryCsv(summary).trim().split('\n');
    expect(fields(header as string)).toEqual(['part', 'variant', 'leaf.offset', 'state', 'metric', 'n', 'mean', 'sd', 'ci95_low', 'ci95_high']);
    expect(fields(row as string)).toEqual(['main', `'${EVIL}`, '-1.5', 'ok', 'amplification', '1', '-0.25', '0', '-0.5', '0']);
  });

  it('a run with a variant named like a formula writes it as text in summary.csv', async () => {
    const dir = tempDir();
    const file = writeExperiment(dir, 'evil.json', {
      name: 'evil',
      scenario: {
        workload: { kind: 'burst', clients: 5 },
        stack: [{ name: 'client', policy: { maxAttempts: 2, backoff: { kind: 'none' } } }],
        leaf: { kind: 'server', concurrency: 'unlimited', serviceMs: 1 },
      },
      variants: { [EVIL]: {}, '@cmd': {} },
      replications: 1,
    });
    const r = await cli(['run', file, '--out', join(dir, 'out'), '--quiet', '--workers', '1']);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    const lines = readFileSync(join(dir, 'out', 'evil', 'summary.csv'), 'utf8').trim().split('\n').slice(1);
    const variants = new Set(lines.map((l) => fields(l)[1]));
    expect([...variants].sort()).toEqual([`'${EVIL}`, "'@cmd"]);
    for (const l of lines) expect(l).not.toMatch(/(^|,)[=+@-]/);
  });
});
