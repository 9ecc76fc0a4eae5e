import { describe, expect, it } from 'vitest';
import { expandExperiment, type ExpandOptions } from '../../src/experiment/index.js';
import { cli, tempDir, writeExperiment } from '../cli/helpers.js';

type Json = Record<string, unknown>;

/** An M/M/1 queue (arrivals 80/s, service 100/s, one attempt) swept over the arrival rate. */
function experiment(risk: Json, more: Json = {}): Json {
  return {
    name: 'mm1-risk',
    scenario: {
      workload: { kind: 'open', rate: 80, durationMs: 60_000 },
      stack: [{ name: 'client', policy: { maxAttempts: 1 } }],
      leaf: { kind: 'server', concurrency: 1, queueLimit: 'unlimited', serviceMs: { dist: 'exponential', mean: 10 } },
      horizonMs: 60_000,
    },
    sweep: { grid: { 'workload.rate': [60, 80] } },
    risk,
    ...more,
  };
}

/** A valid section: the queue reaching 10 before it empties. */
function section(over: Json = {}): Json {
  return {
    importance: { metric: 'inFlight' },
    collapse: { metric: 'inFlight', above: 9, forMs: 0 },
    checkEveryMs: 0,
    absorbBelow: 1,
    ...over,
  };
}

function errors(root: Json, options: ExpandOptions = { quick: false }): string[] {
  const r = expandExperiment({ root }, options);
  return r.ok ? [] : r.errors;
}

describe('the risk section of an experiment file', () => {
  it('is carried into the plan, one section for every cell of the sweep', () => {
    const r = expandExperiment({ root: experiment(section()) }, { quick: false });
    if (!r.ok) throw new Error(r.errors.join('\n'));
    expect(r.plan.parts[0]?.risk).toEqual(section());
    expect(r.plan.parts[0]?.cells.map((c) => c.params)).toEqual([{ 'workload.rate': 60 }, { 'workload.rate': 80 }]);
  });

  it('is absent from the plan of a file without one', () => {
    const root = experiment(section());
    delete root.risk;
    const r = expandExperiment({ root }, { quick: false });
    expect(r.ok && r.plan.parts[0]?.risk).toBe(undefined);
  });

  it('takes quick mode and --set like the rest of the file', () => {
    const root = experiment(section({ particles: 50 }), { quick: { risk: { particles: 10 } } });
    const r = expandExperiment({ root }, { quick: true, set: [['risk.repetitions', 4]] });
    if (!r.ok) throw new Error(r.errors.join('\n'));
    expect([r.plan.parts[0]?.risk?.particles, r.plan.parts[0]?.risk?.repetitions]).toEqual([10, 4]);
  });

  it.each([
    ['neither above nor below', section({ collapse: { metric: 'inFlight', forMs: 0 } }), 'risk.collapse.above or collapse.below is required, exactly one of them (got neither'],
    ['both above and below', section({ collapse: { metric: 'inFlight', above: 9, below: 1, forMs: 0 } }), 'risk.collapse.above or collapse.below is required, exactly one of them (got both'],
    ['a window on an instant metric', section({ importance: { metric: 'queued', windowMs: 100 } }), 'risk.importance.windowMs is only for the metrics read over a window'],
    ['a window off the grid', section({ checkEveryMs: 30, collapse: { metric: 'goodput', below: 0.5, forMs: 1000, windowMs: 100 } }), 'risk.collapse.windowMs must be a multiple of checkEveryMs (got 100, checkEveryMs 30)'],
    ['checks after every event with a windowed metric', section({ collapse: { metric: 'goodput', below: 0.5, forMs: 1000 } }), 'risk.checkEveryMs must be > 0 when collapse.metric is goodput'],
    ['a decreasing importance', section({ checkEveryMs: 100, importance: { metric: 'hitRatio' } }), 'risk.importance.metric cannot be hitRatio: it falls toward the collapse'],
    ['a cache on a service metric', section({ importance: { metric: 'inFlight', cache: 'db' } }), 'risk.importance.cache is only for missRatio and hitRatio (got metric inFlight)'],
    ['levels that do not ascend', section({ method: 'fixed', levels: [2, 5, 5] }), 'risk.levels.2 must be greater than levels.1 (levels ascend toward the collapse; got 5 after 5)'],
    ['fixed without levels', section({ method: 'fixed' }), 'risk.levels is required by method fixed'],
    ['monte-carlo without runs', section({ method: 'monte-carlo' }), 'risk.runs is required by method monte-carlo'],
    ['runs with adaptive', section({ runs: 100 }), 'risk.runs is only read by method monte-carlo (this section\'s method is adaptive)'],
    ['levels with adaptive', section({ levels: [1, 2] }), 'risk.levels is only read by method fixed (this section\'s method is adaptive)'],
    ['particles with monte-carlo', section({ method: 'monte-carlo', runs: 10, particles: 10 }), 'risk.particles is only read by method adaptive or fixed'],
    ['killCount not below particles', section({ particles: 10, killCount: 10 }), 'risk.killCount must be less than particles (got 10, particles 10'],
  ])('refuses %s, naming the field and the rule', (_, risk, message) => {
    expect(errors(experiment(risk))).toEqual([expect.stringContaining(message)]);
  });

  it('blames a --set that breaks a rule on the --set', () => {
    expect(errors(experiment(section()), { quick: false, set: [['risk.method', 'fixed']] })).toEqual([expect.stringMatching(/^--set risk\.method: risk\.levels is required by method fixed/)]);
  });

  it('makes validate exit 2 naming the file and the field, without a stack trace', async () => {
    const dir = tempDir();
    const file = writeExperiment(dir, 'bad.json', experiment(section({ method: 'monte-carlo' })));
    const r = await cli(['validate', file]);
    expect(r.code).toBe(2);
    expect(r.err).toContain('risk.runs is required by method monte-carlo');
    expect(r.err).toContain('bad.json');
    expect(r.err).not.toMatch(/\n\s+at /);
  });
});

/** Two parts over one M/M/1 scenario: `a` and `b`, each with the risk section given (none: no field). */
function twoParts(root: Json | undefined, a: Json | undefined, b: Json | undefined, more: Json = {}): Json {
  const base = experiment(section());
  const part = (name: string, risk: Json | undefined): Json => ({ name, scenario: base.scenario, ...(risk ? { risk } : {}) });
  return { name: 'mm1-parts', parts: [part('a', a), part('b', b)], ...(root ? { risk: root } : {}), ...more };
}

function planOf(root: Json, options: ExpandOptions = { quick: false }) {
  const r = expandExperiment({ root }, options);
  if (!r.ok) throw new Error(r.errors.join('\n'));
  return r.plan;
}

describe("a part's own risk section", () => {
  it("replaces the file's for that part's cells, whole (a field only the file's section gives is not taken), and a part without one takes the file's", () => {
    const own = section({ importance: { metric: 'queued' }, collapse: { metric: 'queued', above: 4, forMs: 0 } });
    const plan = planOf(twoParts(section({ particles: 50, repetitions: 4 }), undefined, own));
    expect(plan.parts.map((p) => [p.name, p.risk, p.riskPath])).toEqual([
      ['a', section({ particles: 50, repetitions: 4 }), 'risk'],
      ['b', own, 'parts.1.risk'],
    ]);
  });

  it("is changed by its part's quick, not by the file's, and --set risk.<field> sets it in every part that has its own", () => {
    const root = twoParts(section({ particles: 50 }), undefined, section({ particles: 40 }), { quick: { risk: { particles: 10 } } });
    (root.parts as Json[])[1] = { ...((root.parts as Json[])[1] as Json), quick: { risk: { particles: 8 } } };
    expect(planOf(root, { quick: true }).parts.map((p) => p.risk?.particles)).toEqual([10, 8]);
    expect(planOf(root, { quick: true, set: [['risk.repetitions', 3]] }).parts.map((p) => p.risk?.repetitions)).toEqual([3, 3]);
    // No section at the root: --set reaches the parts' own and adds no half section to the root.
    const parts = twoParts(undefined, section(), section({ particles: 40 }));
    expect(planOf(parts, { quick: false, set: [['risk.particles', 6]] }).parts.map((p) => p.risk?.particles)).toEqual([6, 6]);
    expect(planOf(parts, { quick: false, set: [['parts.b.risk.particles', 7]] }).parts.map((p) => p.risk?.particles)).toEqual([undefined, 7]);
  });

  it('is validated with messages naming parts.<i>.risk.<field>, a patch blamed on its source', () => {
    expect(errors(twoParts(undefined, section(), section({ method: 'fixed' })))).toEqual([expect.stringMatching(/^parts\.1\.risk\.levels is required by method fixed/)]);
    const root = twoParts(undefined, section(), section());
    (root.parts as Json[])[0] = { ...((root.parts as Json[])[0] as Json), quick: { risk: { method: 'monte-carlo' } } };
    expect(errors(root, { quick: true })).toEqual([expect.stringMatching(/^parts\.0\.quick: parts\.0\.risk\.runs is required by method monte-carlo/)]);
  });
});
