import { describe, expect, it } from 'vitest';
import { resolveScenario } from '../../src/experiment/index.js';
import { Model } from '../../src/model/Model.js';
import type { TraceEvent } from '../../src/model/trace.js';
import type { SimulationResults } from '../../src/model/results.js';

/** Runs a scenario as written, traced through the graph too; the timeline as lines "t op layer what". */
function run(scenario: Record<string, unknown>): { log: string[]; results: SimulationResults } {
  const resolved = resolveScenario(scenario);
  if (!resolved.ok) throw new Error(resolved.errors.join('\n'));
  const events: TraceEvent[] = [];
  const results = new Model(resolved.scenario, { seed: 1, fixedDraw: 0.5, trace: (e) => events.push(e), traceGraph: true }).run();
  return { log: events.map(line), results };
}

function line(e: TraceEvent): string {
  const where = 'site' in e && e.site !== undefined ? `${e.site.caller}->${e.site.callee} ` : '';
  const head = `${e.tMs} op${e.op} ${where}`;
  switch (e.event) {
    case 'attempt':
      return `${head}attempt ${e.attempt}`;
    case 'outcome':
      return `${head}outcome ${e.attempt} ${e.outcome}`;
    case 'wait':
      return `${head}wait ${e.waitMs}`;
    case 'give-up':
      return `${head}give-up ${e.reason} after ${e.attempts}`;
    default:
      return `${head}${e.event}`;
  }
}

/** The errors of a scenario that must not resolve. */
function errors(scenario: Record<string, unknown>): string[] {
  const resolved = resolveScenario(scenario);
  if (resolved.ok) throw new Error('resolved');
  return resolved.errors;
}

const SUPPORTED_TEXT =
  "an intervention changes a layer's policy (<stack>.<i>.policy or one of its fields, the stack being stack, workloads.<name>.stack or a call's stack), a fleet's queueLimit (leaf.queueLimit, leaf.server.queueLimit, leaf.clusters.<i>.server.queueLimit, or the same under services.<name>.fleet), a service's maxInFlight (services.<name>.maxInFlight), or warms a call's cache (<call>.cache.warm: the number of most popular keys) or a shared cache (caches.<name>.warm)";

const constant100 = { kind: 'constant', baseMs: 100, capMs: 100 };

/** One client whose calls the script answers 503 after 50 ms; the layer retries after 100 ms, 5 attempts. */
function failing(interventions: unknown[], policy: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    workload: { kind: 'burst', clients: 1 },
    stack: [{ name: 'client', policy: { maxAttempts: 5, backoff: constant100, ...policy } }],
    leaf: { kind: 'script', script: ['503:50'] },
    interventions,
  };
}

describe('timed interventions change behaviour from their moment on, and not before', () => {
  it('retries turned off at t = 175: the attempt sent at 150 went out, the decision at 200 takes the new cap', () => {
    const { log, results } = run(failing([{ atMs: 175, set: { 'stack.0.policy.maxAttempts': 1 } }]));
    expect(log).toEqual([
      '0 op0 call',
      '0 op0 attempt 1',
      '50 op0 outcome 1 503',
      '50 op0 wait 100',
      '150 op0 attempt 2',
      '200 op0 outcome 2 503',
      '200 op0 give-up attempt-limit after 2',
    ]);
    expect(results.interventions).toEqual([{ atMs: 175, paths: ['stack.0.policy.maxAttempts'] }]);
  });

  it('without the intervention the same run retries to its cap (the test above can fail)', () => {
    const { log } = run(failing([]));
    expect(log.filter((l) => l.includes('attempt ')).length).toBe(5);
    expect(log[log.length - 1]).toBe('650 op0 give-up attempt-limit after 5');
  });

  it('a retry waiting across atMs re-checks maxAttempts when it wakes: it gives up at its wake-up without sending', () => {
    const { log } = run(failing([{ atMs: 100, set: { 'stack.0.policy.maxAttempts': 1 } }]));
    expect(log).toEqual(['0 op0 call', '0 op0 attempt 1', '50 op0 outcome 1 503', '50 op0 wait 100', '150 op0 give-up attempt-limit after 1']);
  });

  it('a waiting retry that the new cap still allows is sent at its planned wake-up, and the cap then stops at 2 attempts', () => {
    const { log } = run(failing([{ atMs: 100, set: { 'stack.0.policy.maxAttempts': 2 } }]));
    expect(log).toEqual([
      '0 op0 call',
      '0 op0 attempt 1',
      '50 op0 outcome 1 503',
      '50 op0 wait 100',
      '150 op0 attempt 2',
      '200 op0 outcome 2 503',
      '200 op0 give-up attempt-limit after 2',
    ]);
  });

  it('an intervention at the moment of a wake-up applies before it (at or after atMs)', () => {
    const { log } = run(failing([{ atMs: 150, set: { 'stack.0.policy.maxAttempts': 1 } }]));
    expect(log[log.length - 1]).toBe('150 op0 give-up attempt-limit after 1');
  });

  it('a budget added at t starts empty: the retry waiting across t is refused when it wakes; the same budget from the start allows it', () => {
    const bucket = { kind: 'token-bucket' };
    const added = run(failing([{ atMs: 100, set: { 'stack.0.policy.budget': [bucket] } }]));
    expect(added.log).toEqual(['0 op0 call', '0 op0 attempt 1', '50 op0 outcome 1 503', '50 op0 wait 100', '150 op0 give-up budget-exhausted after 1']);
    const fromStart = run(failing([], { budget: [bucket] }));
    expect(fromStart.log.slice(0, 5)).toEqual(['0 op0 call', '0 op0 attempt 1', '50 op0 outcome 1 503', '50 op0 wait 100', '150 op0 attempt 2']);
  });

  it('a budget added at t: a retry decided after t is refused by the empty budget, one decided before was not', () => {
    const { log } = run(failing([{ atMs: 175, set: { 'stack.0.policy.budget': [{ kind: 'token-bucket' }] } }]));
    expect(log).toEqual([
      '0 op0 call',
      '0 op0 attempt 1',
      '50 op0 outcome 1 503',
      '50 op0 wait 100',
      '150 op0 attempt 2',
      '200 op0 outcome 2 503',
      '200 op0 give-up budget-exhausted after 2',
    ]);
  });

  it('queueLimit lowered at t = 50 sheds the newest queued requests beyond it with 503 at that moment; the older ones are served', () => {
    const { log, results } = run({
      workload: { kind: 'burst', clients: 5 },
      stack: [{ name: 'client', policy: { maxAttempts: 1 } }],
      leaf: { kind: 'server', concurrency: 1, serviceMs: 100 },
      interventions: [{ atMs: 50, set: { 'leaf.queueLimit': 1 } }],
    });
    expect(log.filter((l) => l.includes('outcome'))).toEqual([
      '50 op4 outcome 1 503',
      '50 op3 outcome 1 503',
      '50 op2 outcome 1 503',
      '100 op0 outcome 1 200',
      '200 op1 outcome 1 200',
    ]);
    expect(results.server.shed).toBe(3);
  });

  it('interventions at the same atMs apply in list order: the later one wins', () => {
    const { log, results } = run(
      failing([
        { atMs: 100, set: { 'stack.0.policy.maxAttempts': 1 } },
        { atMs: 100, set: { 'stack.0.policy.maxAttempts': 2 } },
      ]),
    );
    expect(log.filter((l) => l.includes('give-up'))).toEqual(['200 op0 give-up attempt-limit after 2']);
    expect(results.interventions?.map((i) => i.paths[0])).toEqual(['stack.0.policy.maxAttempts', 'stack.0.policy.maxAttempts']);
  });

  it('interventions apply in the order of atMs, whatever the order written; a new backoff governs the waits planned after its moment', () => {
    const { log, results } = run(
      failing([
        { atMs: 400, set: { 'stack.0.policy.maxAttempts': 1 } },
        { atMs: 100, set: { 'stack.0.policy.backoff': { kind: 'constant', baseMs: 200, capMs: 200 } } },
      ]),
    );
    expect(log).toEqual([
      '0 op0 call',
      '0 op0 attempt 1',
      '50 op0 outcome 1 503',
      '50 op0 wait 100',
      '150 op0 attempt 2',
      '200 op0 outcome 2 503',
      '200 op0 wait 200',
      '400 op0 give-up attempt-limit after 2',
    ]);
    expect(results.interventions?.map((i) => i.atMs)).toEqual([100, 400]);
  });

  it('an intervention after the run has drained is not applied, and the results say so', () => {
    const { results } = run(failing([{ atMs: 5000, set: { 'stack.0.policy.maxAttempts': 1 } }]));
    expect(results.interventions).toEqual([]);
  });
});

describe('timed interventions in a service graph', () => {
  /** The workload calls app (1 attempt); app's handler calls db through sdk (5 attempts, 100 ms apart); db answers 503 after 50 ms; zero hops. */
  const graph = (interventions: unknown[]) => ({
    workload: { kind: 'burst', clients: 1, entry: { service: 'app' } },
    stack: [{ name: 'client', policy: { maxAttempts: 1 } }],
    services: {
      app: {
        fleet: { kind: 'server', serviceMs: 1 },
        endpoints: { get: { steps: [{ kind: 'call', calls: [{ service: 'db', stack: [{ name: 'sdk', policy: { maxAttempts: 5, backoff: constant100 } }] }] }] } },
      },
      db: { fleet: { kind: 'script', script: ['503:50'] }, endpoints: { get: {} } },
    },
    interventions,
  });

  it("retries off on a call's stack at t = 175: the call's attempt at 150 went out, its decision at 200 gives up, and the handler answers", () => {
    const { log, results } = run(graph([{ atMs: 175, set: { 'services.app.endpoints.get.steps.0.calls.0.stack.0.policy.maxAttempts': 1 } }]));
    expect(log.filter((l) => l.includes('app->db'))).toEqual([
      '0 op0 app->db call',
      '0 op0 app->db attempt 1',
      '50 op0 app->db outcome 1 503',
      '50 op0 app->db wait 100',
      '150 op0 app->db attempt 2',
      '200 op0 app->db outcome 2 503',
      '200 op0 app->db give-up attempt-limit after 2',
    ]);
    expect(results.edges?.find((e) => e.callee === 'db')?.calls).toBe(2);
    expect(results.interventions).toEqual([{ atMs: 175, paths: ['services.app.endpoints.get.steps.0.calls.0.stack.0.policy.maxAttempts'] }]);
  });

  it("a graph fleet's queueLimit lowered at t sheds the newest queued calls with 503, which the handlers answer upward", () => {
    const { log, results } = run({
      workload: { kind: 'burst', clients: 4, entry: { service: 'app' } },
      stack: [{ name: 'client', policy: { maxAttempts: 1 } }],
      services: {
        app: {
          fleet: { kind: 'server', concurrency: 10, serviceMs: 1 },
          endpoints: { get: { steps: [{ kind: 'call', calls: [{ service: 'db', stack: [{ name: 'sdk', policy: { maxAttempts: 1 } }] }] }] } },
        },
        db: { fleet: { kind: 'server', concurrency: 1, serviceMs: 100 }, endpoints: { get: {} } },
      },
      interventions: [{ atMs: 50, set: { 'services.db.fleet.queueLimit': 1 } }],
    });
    expect(log.filter((l) => l.includes('app->db outcome'))).toEqual([
      '50 op3 app->db outcome 1 503',
      '50 op2 app->db outcome 1 503',
      '100 op0 app->db outcome 1 200',
      '200 op1 app->db outcome 1 200',
    ]);
    expect(results.services?.find((s) => s.service === 'db')?.shed).toBe(2);
    expect(results.operations).toMatchObject({ succeeded: 2, failed: 2 });
  });

  it("maxInFlight lowered at t on a service: arrivals from t on are refused beyond it, those admitted before go on", () => {
    const sc = {
      workload: { kind: 'burst', clients: 3, startMs: { dist: 'uniform', min: 0, max: 100 }, entry: { service: 'app' } },
      stack: [{ name: 'client', policy: { maxAttempts: 1 } }],
      services: { app: { fleet: { kind: 'server', concurrency: 10, serviceMs: 1000 }, endpoints: { get: {} } } },
      interventions: [{ atMs: 0, set: { 'services.app.maxInFlight': 1 } }],
    };
    const { results } = run(sc);
    expect(results.services?.[0]?.refusedInFlight).toBe(2);
    const none = run({ ...sc, interventions: [] });
    expect(none.results.services?.[0]?.refusedInFlight ?? 0).toBe(0);
  });
});

describe('validation of interventions', () => {
  it('refuses a path outside what an intervention can change, naming the path and the rule', () => {
    const e = errors(failing([{ atMs: 10, set: { 'stack.0.hopMs': 5 } }]));
    expect(e).toHaveLength(1);
    expect(e[0]).toMatch(/^scenario\.interventions\.0\.set\.stack\.0\.hopMs is not a setting an intervention can change \(an intervention changes a layer's policy/);
  });

  it('refuses a value the field does not take, at the intervention\'s path', () => {
    expect(errors(failing([{ atMs: 10, set: { 'stack.0.policy.maxAttempts': 'x' } }]))).toEqual([
      'scenario.interventions.0.set.stack.0.policy.maxAttempts must be a positive integer or "unlimited" (got "x")',
    ]);
  });

  it('refuses a moment outside the run and a negative one', () => {
    expect(errors({ ...failing([{ atMs: 5000, set: { 'stack.0.policy.maxAttempts': 1 } }]), horizonMs: 1000 })).toEqual([
      'scenario.interventions.0.atMs must be within the run: less than horizonMs (got 5000 >= 1000)',
    ]);
    expect(errors(failing([{ atMs: -1, set: { 'stack.0.policy.maxAttempts': 1 } }]))).toEqual(['scenario.interventions.0.atMs must be >= 0 (got -1)']);
  });

  it('refuses a change to a policy field fixed at the start (hedging)', () => {
    const e = errors(failing([{ atMs: 10, set: { 'stack.0.policy.maxAttempts': 1, 'stack.0.policy.hedging': { maxAttempts: 2, hedgingDelayMs: 10 } } }]));
    expect(e).toEqual(["scenario.interventions.0.set.stack.0.policy.hedging changes the policy's hedging, which cannot change during a run (hedged calls are armed as they start)"]);
  });

  it('refuses a layer that does not exist and an empty set', () => {
    expect(errors(failing([{ atMs: 10, set: { 'stack.3.policy.maxAttempts': 1 } }]))[0]).toMatch(/^scenario\.interventions\.0\.set\.stack\.3\.policy\.maxAttempts cannot set/);
    expect(errors(failing([{ atMs: 10, set: {} }]))).toEqual(['scenario.interventions.0.set must set at least one path']);
  });

  it('a scenario without interventions resolves with no interventions key (its results unchanged)', () => {
    const r = resolveScenario(failing([]));
    expect(r.ok && 'interventions' in r.scenario).toBe(false);
    const { interventions: _none, ...without } = failing([]);
    const plain = resolveScenario(without);
    expect(plain.ok && 'interventions' in plain.scenario).toBe(false);
  });
});

describe('interventions on the command line', () => {
  it('validate refuses a bad path with exit code 2, the dotted path and the rule, and no stack trace', async () => {
    const { cli, tempDir, writeExperiment } = await import('../cli/helpers.js');
    const file = writeExperiment(tempDir(), 'bad.json', { name: 'bad-intervention', scenario: failing([{ atMs: 10, set: { 'leaf.script': ['200'] } }]) });
    const r = await cli(['validate', file]);
    expect(r.code).toBe(2);
    expect(r.err).toContain("scenario.interventions.0.set.leaf.script is not a setting an intervention can change (an intervention changes a layer's policy");
    expect(r.err).not.toMatch(/\n\s+at /);
  });

  it('a variant may set the interventions (an error there names the variant); its cells resolve them', async () => {
    const { expandExperiment } = await import('../../src/experiment/index.js');
    const root = {
      name: 'variant-intervention',
      scenario: failing([]),
      variants: { steady: {}, 'retries-off': { interventions: [{ atMs: 175, set: { 'stack.0.policy.maxAttempts': 1 } }] } },
    };
    const plan = expandExperiment({ root }, { quick: false });
    if (!plan.ok) throw new Error(plan.errors.join('\n'));
    const cells = plan.plan.parts[0]?.cells ?? [];
    expect(cells.map((c) => c.scenario.interventions?.map((i) => i.atMs))).toEqual([undefined, [175]]);
    const bad = expandExperiment({ root: { ...root, variants: { off: { interventions: [{ atMs: 1, set: { 'stack.0.name': 'x' } }] } } } }, { quick: false });
    expect(bad.ok ? [] : bad.errors).toEqual([
      "variants.off: scenario.interventions.0.set.stack.0.name is not a setting an intervention can change (" + SUPPORTED_TEXT + ')',
    ]);
  });
});

describe('warming a cache at t', () => {
  /** The workload calls app; app's handler calls db through a cache that starts empty (K = 10 keys, capacity 10); db always answers 503, so no miss fills it. */
  const cached = (interventions: unknown[]) => ({
    workload: { kind: 'burst', clients: 40, startMs: { dist: 'uniform', min: 0, max: 200 }, entry: { service: 'app' } },
    stack: [{ name: 'client', policy: { maxAttempts: 1 } }],
    services: {
      app: {
        fleet: { kind: 'server', concurrency: 100, serviceMs: 0 },
        endpoints: {
          get: {
            steps: [
              {
                kind: 'call',
                calls: [{ service: 'db', cache: { capacity: 10, keys: 10, zipf: 0.8, initial: 'empty', hitLatencyMs: 0 }, stack: [{ name: 'sdk', policy: { maxAttempts: 1 } }] }],
              },
            ],
          },
        },
      },
      db: { fleet: { kind: 'script', script: ['503:1'] }, endpoints: { get: {} } },
    },
    network: { hopMs: 0 },
    interventions,
  });

  it('warm: N fills the N most popular keys at t: every operation before t misses and fails, every one from t on hits', () => {
    const { log, results } = run(cached([{ atMs: 100, set: { 'services.app.endpoints.get.steps.0.calls.0.cache.warm': 10 } }]));
    const started = new Map<string, number>();
    const ended = new Map<string, string>();
    for (const l of log) {
      const [t, op, what, reason] = l.split(' ');
      if (l.includes('->')) continue;
      if (what === 'call') started.set(op as string, Number(t));
      if (what === 'give-up') ended.set(op as string, reason as string);
    }
    const before = [...started].filter(([, t]) => t < 100).map(([op]) => ended.get(op));
    const after = [...started].filter(([, t]) => t >= 100).map(([op]) => ended.get(op));
    expect(before.length).toBeGreaterThan(5);
    expect(after.length).toBeGreaterThan(5);
    expect(new Set(before)).toEqual(new Set(['attempt-limit']));
    expect(new Set(after)).toEqual(new Set(['success']));
    expect(results.interventions).toEqual([{ atMs: 100, paths: ['services.app.endpoints.get.steps.0.calls.0.cache.warm'] }]);
    const none = run(cached([]));
    expect(none.results.operations.succeeded).toBe(0);
  });

  it('refuses a warm that is not a positive integer, and one on a call without a cache', () => {
    expect(errors(cached([{ atMs: 10, set: { 'services.app.endpoints.get.steps.0.calls.0.cache.warm': 0 } }]))).toEqual([
      'scenario.interventions.0.set.services.app.endpoints.get.steps.0.calls.0.cache.warm must be a positive integer, the number of most popular keys to fill (got 0)',
    ]);
    const g = JSON.parse(JSON.stringify(cached([{ atMs: 10, set: { 'services.app.endpoints.get.steps.0.calls.0.cache.warm': 5 } }])));
    delete g.services.app.endpoints.get.steps[0].calls[0].cache;
    expect(errors(g)).toEqual([
      "scenario.interventions.0.set.services.app.endpoints.get.steps.0.calls.0.cache.warm names a call without a cache (warming fills a call's cache)",
    ]);
  });
});
