import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { expandExperiment, parseExperimentText, patchedRoot, valueAtDottedPath } from '../../src/experiment/index.js';
import { buildReportModel } from '../../src/report/reportModel.js';
import { cli, tempDir, writeExperiment } from '../cli/helpers.js';

const scenario = {
  workload: { kind: 'open', rate: 1350, durationMs: 120000 },
  stack: [{ name: 'client', policy: { maxAttempts: 2 } }],
  leaf: { kind: 'server', serviceMs: 5, capacity: [{ atMs: 60000, durationMs: 30000, concurrency: 1 }] },
};

function experiment(description: string, partDescription: string): Record<string, unknown> {
  return {
    name: 'placeholders',
    description,
    replications: 20,
    parts: [
      {
        name: 'dip',
        description: partDescription,
        scenario,
        variants: { a: { 'leaf.serviceMs': 4 }, b: {} },
        sweep: { grid: { 'workload.rate': [1100, 1250, 1350] } },
        quick: { replications: 2, scenario: { workload: { durationMs: 40000 }, leaf: { capacity: [{ atMs: 10000, durationMs: 30000, concurrency: 1 }] } }, sweep: { grid: { 'workload.rate': [1350] } } },
      },
    ],
  };
}

function descriptions(body: unknown, quick: boolean): string[] {
  const parsed = parseExperimentText(JSON.stringify(body), 'x.json');
  if (!parsed.ok) throw new Error(parsed.errors.join('\n'));
  const expanded = expandExperiment(parsed.experiment, { quick });
  if (!expanded.ok) throw new Error(expanded.errors.join('\n'));
  return [expanded.plan.description, ...expanded.plan.parts.map((p) => p.description)];
}

describe('placeholders in descriptions quote the plan that runs', () => {
  const body = experiment(
    'A dip at t = {{parts.dip.scenario.leaf.capacity.0.atMs|s}} s for {{parts.0.scenario.leaf.capacity.0.durationMs|s}} s, loads {{parts.dip.sweep.grid.workload.rate}}/s.',
    '{{scenario.workload.durationMs|s}} s of demand, {{replications}} runs, variant a serves in {{variants.a.leaf.serviceMs}} ms.',
  );

  it('in full mode, the full plan', () => {
    expect(descriptions(body, false)).toEqual([
      'A dip at t = 60 s for 30 s, loads 1,100, 1,250 and 1,350/s.',
      // a part without its own `replications` takes the root's
      '120 s of demand, 20 runs, variant a serves in 4 ms.',
    ]);
  });

  it('in quick mode, the quick patch applied', () => {
    expect(descriptions(body, true)).toEqual(['A dip at t = 10 s for 30 s, loads 1,350/s.', '40 s of demand, 2 runs, variant a serves in 4 ms.']);
  });

  it('a key holding dots (a variant override, a sweep axis) is matched whole', () => {
    expect(valueAtDottedPath({ variants: { a: { 'workload.rate': { points: [{ atMs: 5 }] } } } }, 'variants.a.workload.rate.points.0.atMs')).toEqual({ found: true, value: 5 });
    expect(valueAtDottedPath({ parts: [{ name: 'x', n: 1 }] }, 'parts.y.n')).toEqual({ found: false });
  });

  it('a placeholder naming nothing, an object or an unknown unit is a validation error naming the field (exit 2)', async () => {
    const dir = tempDir();
    const bad = experiment('Runs {{parts.dip.scenario.workload.durMs|s}} s; {{parts.dip.scenario.leaf}}.', 'For {{scenario.workload.durationMs|min}}.');
    const file = writeExperiment(dir, 'bad.json', bad);
    const r = await cli(['validate', file]);
    expect(r.code).toBe(2);
    expect(r.err).toContain('description: {{parts.dip.scenario.workload.durMs|s}} names nothing in the plan that runs');
    expect(r.err).toContain('description: {{parts.dip.scenario.leaf}} must name a number, a text or a list of them in the plan (got object)');
    expect(r.err).toContain('parts.0.description: {{scenario.workload.durationMs|min}} has an unknown unit "min" (known: s)');
    expect(r.err).not.toMatch(/\n\s+at /);
  });

  it('a path only the quick patch provides is refused in full mode', async () => {
    const body2 = experiment('{{parts.dip.quick.replications}} quick runs; {{parts.dip.scenario.leaf.queueLimit}}.', '');
    const file = writeExperiment(tempDir(), 'q.json', body2);
    const r = await cli(['validate', file]);
    expect(r.code).toBe(2);
    expect(r.err).toContain('description: {{parts.dip.scenario.leaf.queueLimit}} names nothing in the plan that runs');
  });
});

describe('shipped descriptions quote the quick plan in quick mode', () => {
  // The dip of microservice-cascade and noisy-neighbor, and the drop of metastable-collapse's storm, move in quick mode.
  const cases: Array<[string, string, (t: number) => string]> = [
    ['microservice-cascade', 'parts.0.scenario.services.db.fleet.capacity.0.atMs', (t) => `At t = ${t} s the database loses half its workers`],
    ['noisy-neighbor', 'parts.0.scenario.services.db.fleet.capacity.0.atMs', (t) => `of its workers for 20 s from t = ${t} s`],
    ['metastable-collapse', 'parts.3.variants.drop-to-9000.workload.rate.points.2.atMs', (t) => `input dropped to 9,000/s at t = ${t} s`],
  ];
  for (const [name, path, sentence] of cases) {
    it(name, () => {
      const text = readFileSync(`experiments/${name}.json`, 'utf8');
      const parsed = parseExperimentText(text, name);
      if (!parsed.ok) throw new Error(parsed.errors.join('\n'));
      for (const quick of [false, true]) {
        const hit = valueAtDottedPath(patchedRoot(parsed.experiment.root as Record<string, unknown>, { quick }), path);
        if (!hit.found) throw new Error(`${path} not in ${name}`);
        const expanded = expandExperiment(parsed.experiment, { quick });
        if (!expanded.ok) throw new Error(expanded.errors.join('\n'));
        const all = [expanded.plan.description, ...expanded.plan.parts.map((p) => p.description)].join('\n');
        expect(all).toContain(sentence((hit.value as number) / 1000));
      }
    });
  }
});

describe('placeholders in chart titles and captions', () => {
  const withCaption = (caption: string) => {
    const body = experiment('', '') as { parts: Array<Record<string, unknown>> };
    (body.parts[0] as Record<string, unknown>).report = { charts: [{ kind: 'series', title: 'Goodput, dip at {{scenario.leaf.capacity.0.atMs|s}} s', caption }] };
    return body;
  };

  it('the report shows the numbers of the plan that ran', () => {
    const source = withCaption('The dip lasts {{scenario.leaf.capacity.0.durationMs|s}} s of a {{scenario.workload.durationMs|s}} s run.');
    const cell = { key: 'k', part: 'dip', variant: 'a', params: { 'workload.rate': 1350 }, state: 'ok', replications: 1, errors: [], metrics: {}, scenario: null, timeSeries: { typical: null, mean: null } };
    const summary = { experiment: 'placeholders', description: '', seed: 1, version: '0.1.0', cells: [cell] } as unknown as Parameters<typeof buildReportModel>[0];
    const chart = (quick: boolean) => buildReportModel(summary, { source, quick, set: [], date: null, runTimeMs: null, reportVersion: '0.1.0' }).parts[0]?.hints.charts?.[0];
    expect([chart(false)?.title, chart(false)?.caption]).toEqual(['Goodput, dip at 60 s', 'The dip lasts 30 s of a 120 s run.']);
    expect([chart(true)?.title, chart(true)?.caption]).toEqual(['Goodput, dip at 10 s', 'The dip lasts 30 s of a 40 s run.']);
  });

  it('a caption placeholder naming nothing is a validation error naming the caption', async () => {
    const file = writeExperiment(tempDir(), 'c.json', withCaption('Ends at {{scenario.workload.endMs|s}} s.'));
    const r = await cli(['validate', file]);
    expect(r.code).toBe(2);
    expect(r.err).toContain('parts.0.report.charts.0.caption: {{scenario.workload.endMs|s}} names nothing in the plan that runs');
  });
});
