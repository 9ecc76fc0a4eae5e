import { describe, expect, it } from 'vitest';
import { resolveScenario } from '../../src/experiment/index.js';
import { Model } from '../../src/model/Model.js';
import type { SimulationResults } from '../../src/model/results.js';
import type { Scenario } from '../../src/model/scenario.js';
import type { TraceEvent } from '../../src/model/trace.js';
import { upwardOutcome } from '../../src/model/graph/upwardOutcome.js';
import { Outcome, OUTCOME_NAMES } from '../../src/policy/outcome.js';

type Json = Record<string, any>;

function resolved(raw: Json): Scenario {
  const r = resolveScenario(raw);
  if (!r.ok) throw new Error(r.errors.join('\n'));
  return r.scenario;
}

function run(raw: Json, seed = 1, trace?: (e: TraceEvent) => void): SimulationResults {
  return new Model(resolved(raw), { seed, trace }).run();
}

const tries = (n: number) => ({ maxAttempts: n, backoff: { kind: 'none' } });
const calls = (r: SimulationResults) => Object.fromEntries((r.edges ?? []).map((e) => [`${e.caller} -> ${e.callee}`, e.calls]));
const service = (r: SimulationResults, name: string) => (r.services ?? []).find((s) => s.service === name)!;

/** The entry layer's timeline: [time, operation, event, outcome or reason]. */
function entryLog(raw: Json): { log: Array<[number, number, string, string]>; r: SimulationResults } {
  const log: Array<[number, number, string, string]> = [];
  const r = run(raw, 1, (e) => {
    if (e.event === 'outcome') log.push([e.tMs, e.op, 'outcome', e.outcome]);
    if (e.event === 'give-up') log.push([e.tMs, e.op, 'give-up', e.reason]);
  });
  return { log, r };
}

describe('work steps (scripted leaves, zero hops: exact event logs)', () => {
  it('a work step after a call step that finds the queue full fails the handler with 503, after its downstream call was made', () => {
    // fe: 1 worker, no queue; its handler calls db (5 ms) and then works 10 ms. Both operations reach
    // fe at 0 and call db at once (no worker held while calling); at 5 op 0's work takes the worker
    // and op 1's finds it busy and the queue full.
    const raw = {
      workload: { kind: 'burst', clients: 2, entry: { service: 'fe' } },
      stack: [{ name: 'app', policy: tries(1) }],
      network: { hopMs: 0 },
      services: {
        fe: {
          fleet: { kind: 'server', concurrency: 1, queueLimit: 0, serviceMs: 10 },
          endpoints: { page: { steps: [{ kind: 'call', calls: [{ service: 'db', stack: [{ name: 'to-db', policy: tries(1) }] }] }, { kind: 'work' }] } },
        },
        db: { fleet: { kind: 'script', script: ['200:5'] }, endpoints: { get: {} } },
      },
    };
    const { log, r } = entryLog(raw);
    expect(log).toEqual([
      [5, 1, 'outcome', '503'],
      [5, 1, 'give-up', 'attempt-limit'],
      [15, 0, 'outcome', '200'],
      [15, 0, 'give-up', 'success'],
    ]);
    expect(calls(r)).toEqual({ 'workload -> fe': 2, 'fe -> db': 2 });
    expect(service(r, 'fe')).toMatchObject({ served: 1, shed: 1 });
  });

  it("a step's own serviceMs times it; without one, the backend's serviceMs does", () => {
    const raw = (steps: Json[]) => ({
      workload: { kind: 'burst', clients: 1, entry: { service: 'fe' } },
      stack: [{ name: 'app', policy: tries(1) }],
      network: { hopMs: 0 },
      services: { fe: { fleet: { kind: 'server', serviceMs: 10 }, endpoints: { page: { steps } } } },
    });
    expect(entryLog(raw([{ kind: 'work' }, { kind: 'work', serviceMs: 3 }])).log[0]).toEqual([13, 0, 'outcome', '200']);
    expect(entryLog(raw([{ kind: 'work', serviceMs: 3 }])).log[0]).toEqual([3, 0, 'outcome', '200']);
  });
});

describe('expired work (deadline propagation)', () => {
  it('a work step finished after its caller stopped waiting is wasted; one still queued past its deadline is dropped', () => {
    // Deadline 15 ms; fe has 1 worker, drops expired requests, and its handler calls db (2 ms) and
    // then works 20 ms. Op 0 works over [2, 22), past its deadline (wasted); op 1 leaves the queue
    // at 22, expired, and is dropped. Both entry attempts stop waiting at 15.
    const raw = {
      workload: { kind: 'burst', clients: 2, deadlineMs: 15, entry: { service: 'fe' } },
      stack: [{ name: 'app', policy: tries(1) }],
      network: { hopMs: 0 },
      services: {
        fe: {
          fleet: { kind: 'server', concurrency: 1, dropExpired: true, serviceMs: 20 },
          endpoints: { page: { steps: [{ kind: 'call', calls: [{ service: 'db' }] }, { kind: 'work' }] } },
        },
        db: { fleet: { kind: 'script', script: ['200:2'] }, endpoints: { get: {} } },
      },
    };
    const { log, r } = entryLog(raw);
    expect(log).toEqual([
      [15, 0, 'outcome', 'timeout'],
      [15, 0, 'give-up', 'deadline'],
      [15, 1, 'outcome', 'timeout'],
      [15, 1, 'give-up', 'deadline'],
    ]);
    expect(service(r, 'fe')).toMatchObject({ served: 1, dropped: 1, wastedWorkMs: 20 });
    expect(r.simulatedMs).toBe(22);
  });
});

describe('threaded services (scripted leaves, zero hops: exact event logs)', () => {
  // fe: 1 worker, a queue of 1; its handler works 2 ms, then calls db, whose first answer to each
  // operation is a 503 after 1 ms and its second a 200 after 1 ms; the call's stack retries once after 10 ms.
  const raw = (execution: 'threaded' | 'async') => ({
    workload: { kind: 'burst', clients: 3, entry: { service: 'fe' } },
    stack: [{ name: 'app', policy: tries(1) }],
    network: { hopMs: 0 },
    services: {
      fe: {
        fleet: { kind: 'server', concurrency: 1, queueLimit: 1, serviceMs: 2 },
        execution,
        endpoints: {
          page: { steps: [{ kind: 'work' }, { kind: 'call', calls: [{ service: 'db', stack: [{ name: 'to-db', policy: { maxAttempts: 2, backoff: { kind: 'constant', baseMs: 10 } } }] }] }] },
        },
      },
      db: { fleet: { kind: 'script', script: ['503:1', '200:1'] }, endpoints: { get: {} } },
    },
  });

  it("a threaded handler holds its worker from its start, through its call and the call's backoff wait, to its end", () => {
    // Op 0 takes the worker at 0, works to 2, calls (503 at 3), waits to 13, calls again (200 at 14)
    // and releases the worker at 14; op 1 waits in the queue until then and repeats it (16, 17, 27,
    // 28); op 2 finds the worker held and the queue full at 0: 503.
    const { log, r } = entryLog(raw('threaded'));
    expect(log).toEqual([
      [0, 2, 'outcome', '503'],
      [0, 2, 'give-up', 'attempt-limit'],
      [14, 0, 'outcome', '200'],
      [14, 0, 'give-up', 'success'],
      [28, 1, 'outcome', '200'],
      [28, 1, 'give-up', 'success'],
    ]);
    expect(calls(r)).toEqual({ 'workload -> fe': 3, 'fe -> db': 4 });
    // The worker is busy over the whole run [0, 28).
    expect(service(r, 'fe')).toMatchObject({ served: 2, shed: 1, maxQueue: 1, meanBusy: 1 });
  });

  it('an async handler holds the worker only during its work step', () => {
    // Op 0 works over [0, 2), op 1 over [2, 4) after waiting in the queue; op 2 still finds the queue full at 0.
    const { log, r } = entryLog(raw('async'));
    expect(log).toEqual([
      [0, 2, 'outcome', '503'],
      [0, 2, 'give-up', 'attempt-limit'],
      [14, 0, 'outcome', '200'],
      [14, 0, 'give-up', 'success'],
      [16, 1, 'outcome', '200'],
      [16, 1, 'give-up', 'success'],
    ]);
    expect(service(r, 'fe')).toMatchObject({ served: 2, shed: 1, maxQueue: 1 });
    expect(service(r, 'fe').meanBusy).toBeCloseTo(4 / 16, 12);
  });
});

describe('threaded handlers ending at once, one after another', () => {
  it('release their workers in turn without the stack growing with the queue', () => {
    // fe (threaded, 1 worker, unbounded queue) calls dep with a 100 ms timeout; dep goes down at 50.
    // 20,000 operations queue behind the first; when its call times out at 100, each next handler
    // takes the worker, is refused by dep at once (no hop), fails and releases the worker.
    const raw = {
      workload: { kind: 'burst', clients: 20000, entry: { service: 'fe' } },
      stack: [{ name: 'app', policy: tries(1) }],
      services: {
        fe: {
          fleet: { kind: 'server', concurrency: 1, serviceMs: 1 },
          execution: 'threaded',
          endpoints: { page: { steps: [{ kind: 'call', calls: [{ service: 'dep', stack: [{ name: 'to-dep', policy: { ...tries(1), perAttemptTimeoutMs: 100 } }] }] }] } },
        },
        dep: { fleet: { kind: 'server', serviceMs: 1000, outages: [{ atMs: 50, durationMs: 100000 }] }, endpoints: { get: {} } },
      },
    };
    const r = run(raw);
    expect(r.operations).toMatchObject({ offered: 20000, failed: 20000 });
    expect(service(r, 'fe')).toMatchObject({ served: 20000, maxQueue: 19999 });
  });
});

describe('maxInFlight (async services)', () => {
  it('refuses at once with 503 a request beyond the cap, those waiting on calls counted', () => {
    // fe admits 2 requests; both wait on db (10 ms). Op 2 is refused at 0, retried by the entry's
    // layer at 15 when nothing is in flight, and answered at 25.
    const raw = {
      workload: { kind: 'burst', clients: 3, entry: { service: 'fe' } },
      stack: [{ name: 'app', policy: { maxAttempts: 2, backoff: { kind: 'constant', baseMs: 15 } } }],
      network: { hopMs: 0 },
      services: {
        fe: {
          fleet: { kind: 'server', serviceMs: 1 },
          maxInFlight: 2,
          endpoints: { page: { steps: [{ kind: 'call', calls: [{ service: 'db', stack: [{ name: 'to-db', policy: tries(1) }] }] }] } },
        },
        db: { fleet: { kind: 'script', script: ['200:10'] }, endpoints: { get: {} } },
      },
    };
    const { log, r } = entryLog(raw);
    expect(log).toEqual([
      [0, 2, 'outcome', '503'],
      [10, 0, 'outcome', '200'],
      [10, 0, 'give-up', 'success'],
      [10, 1, 'outcome', '200'],
      [10, 1, 'give-up', 'success'],
      [25, 2, 'outcome', '200'],
      [25, 2, 'give-up', 'success'],
    ]);
    // The refusal is the service's, not its fleet's: the fleet sheds nothing.
    expect(calls(r)).toEqual({ 'workload -> fe': 4, 'fe -> db': 3 });
    expect(service(r, 'fe')).toMatchObject({ arrivals: 4, shed: 0 });
  });
});

describe('maxInFlight of a leaf service', () => {
  it('caps the requests at its fleet too, the one-service graph included', () => {
    // One service, its endpoint answered by its fleet (10 ms of service on unlimited workers), at
    // most 1 request in flight: op 1 is refused at 0 and retried by the entry's layer at 15.
    const raw = {
      workload: { kind: 'burst', clients: 2, entry: { service: 'api' } },
      stack: [{ name: 'app', policy: { maxAttempts: 2, backoff: { kind: 'constant', baseMs: 15 } } }],
      network: { hopMs: 0 },
      services: { api: { fleet: { kind: 'server', concurrency: 'unlimited', serviceMs: 10 }, maxInFlight: 1, endpoints: { get: {} } } },
    };
    const { log, r } = entryLog(raw);
    expect(log).toEqual([
      [0, 1, 'outcome', '503'],
      [10, 0, 'outcome', '200'],
      [10, 0, 'give-up', 'success'],
      [25, 1, 'outcome', '200'],
      [25, 1, 'give-up', 'success'],
    ]);
    expect(calls(r)).toEqual({ 'workload -> api': 3 });
    expect(service(r, 'api')).toMatchObject({ served: 2, shed: 0 });
  });
});

describe('cancellation reaching a handler', () => {
  it('withdraws the first handler of a service too, and its own calls with it', () => {
    // fe's step `any` (cancellation on) calls mid (a handler calling db, 100 ms) and fast (10 ms):
    // at 10 fast decides, the call to mid is cancelled, and mid's handler (its first) cancels its call to db.
    const raw = {
      workload: { kind: 'burst', clients: 1, entry: { service: 'fe' } },
      stack: [{ name: 'app', policy: tries(1) }],
      network: { hopMs: 0 },
      services: {
        fe: {
          fleet: { kind: 'server', serviceMs: 1 },
          endpoints: { page: { steps: [{ kind: 'call', join: 'any', cancellation: true, calls: [{ service: 'mid' }, { service: 'fast' }] }] } },
        },
        mid: { fleet: { kind: 'server', serviceMs: 1 }, endpoints: { get: { steps: [{ kind: 'call', calls: [{ service: 'db' }] }] } } },
        db: { fleet: { kind: 'script', script: ['200:100'] }, endpoints: { get: {} } },
        fast: { fleet: { kind: 'script', script: ['200:10'] }, endpoints: { get: {} } },
      },
    };
    const { log, r } = entryLog(raw);
    expect(log[0]).toEqual([10, 0, 'outcome', '200']);
    expect(calls(r)).toEqual({ 'workload -> fe': 1, 'fe -> mid': 1, 'fe -> fast': 1, 'mid -> db': 1 });
    // Nothing runs on after 10: db's request was withdrawn with mid's handler.
    expect(r.simulatedMs).toBe(10);
  });
});

describe('three async services in tandem (a Jackson network)', () => {
  it('has mean sojourn sum(1 / (mu_i - lambda)) within the 95 percent interval of a long run', () => {
    // Each endpoint works Exp(mu_i) on its one worker and then calls the next; the last only works.
    // Zero hops, one attempt everywhere: the services are M/M/1 queues in tandem (Jackson 1957;
    // Burke 1956: the departures of an M/M/1 queue are Poisson), so the mean sojourn is the sum of
    // their M/M/1 means.
    const lambda = 0.5; // per ms
    const mus = [1, 0.8, 1.25];
    const names = ['a', 'b', 'c'];
    const services = Object.fromEntries(
      names.map((name, i) => {
        const steps: Json[] = [{ kind: 'work', serviceMs: { dist: 'exponential', mean: 1 / (mus[i] as number) } }];
        if (i < names.length - 1) steps.push({ kind: 'call', calls: [{ service: names[i + 1], stack: [{ name: `to-${names[i + 1]}`, policy: tries(1) }] }] });
        return [name, { fleet: { kind: 'server', concurrency: 1, serviceMs: 1 }, endpoints: { get: { steps } } }];
      }),
    );
    const raw = {
      workload: { kind: 'open', rate: lambda * 1000, durationMs: 3000, clients: 1, entry: { service: 'a' } },
      stack: [{ name: 'app', policy: tries(1) }],
      network: { hopMs: 0 },
      warmupMs: 300,
      services,
    };
    const means: number[] = [];
    for (let seed = 1; seed <= 20; seed++) {
      const r = run(raw, seed);
      expect(r.operations.failed).toBe(0);
      means.push(r.latencyMs.mean as number);
    }
    const n = means.length;
    const mean = means.reduce((s, x) => s + x, 0) / n;
    const sd = Math.sqrt(means.reduce((s, x) => s + (x - mean) ** 2, 0) / (n - 1));
    const half = (2.093 * sd) / Math.sqrt(n); // t(0.975, 19)
    const theory = mus.reduce((s, mu) => s + 1 / (mu - lambda), 0);
    expect(Math.abs(mean - theory)).toBeLessThan(half);
    // Narrow enough to tell the network from its service times without queueing.
    expect(theory - mus.reduce((s, mu) => s + 1 / mu, 0)).toBeGreaterThan(3 * half);
  });
});

describe('thread starvation: a slow dependency uses up a threaded service\'s threads', () => {
  // A gateway (async) calls, for each operation, fe's slow endpoint (optional; it calls dep, which
  // answers after 1 s) and then fe's healthy endpoint (1 ms of work), joined by `all`: an operation
  // succeeds when its healthy call does. fe has 8 workers and no queue. Threaded, the slow calls
  // use up its threads; a bulkhead of 4 on its calls to dep, or async handling, keeps it serving.
  const raw = (execution: 'threaded' | 'async') => ({
    workload: { kind: 'open', rate: 40, durationMs: 3000, clients: 1, entry: { service: 'gw' } },
    stack: [{ name: 'app', policy: tries(1) }],
    network: { hopMs: 0 },
    services: {
      gw: {
        fleet: { kind: 'server', serviceMs: 1 },
        endpoints: { page: { steps: [{ kind: 'call', calls: [{ service: 'fe', endpoint: 'slow', optional: true }, { service: 'fe', endpoint: 'healthy' }] }] } },
      },
      fe: {
        fleet: { kind: 'server', concurrency: 8, queueLimit: 0, serviceMs: 1 },
        execution,
        endpoints: { healthy: { steps: [{ kind: 'work' }] }, slow: { steps: [{ kind: 'call', calls: [{ service: 'dep' }] }] } },
      },
      dep: { fleet: { kind: 'script', script: ['200:1000'] }, endpoints: { get: {} } },
    },
  });

  /** Each operation's start time and whether it succeeded, in start order. */
  const operations = (execution: 'threaded' | 'async', seed: number) => {
    const start = new Map<number, number>();
    const ok = new Map<number, boolean>();
    const r = run(raw(execution), seed, (e) => {
      if (e.layer !== 0) return;
      if (e.event === 'call') start.set(e.op, e.tMs);
      if (e.event === 'give-up') ok.set(e.op, e.reason === 'success');
    });
    return { r, ops: [...start].sort((a, b) => a[0] - b[0]).map(([op, t]) => ({ t, ok: ok.get(op) as boolean })) };
  };

  it.each([1, 2, 3])('threaded (seed %s): once the slow calls hold every thread, the healthy endpoint is refused', (seed) => {
    const { r, ops } = operations('threaded', seed);
    // Each operation's slow call takes a thread for 1 s; the 8th holds the last one. From then until
    // the first of them ends (1 s after the first operation), every healthy call is refused.
    expect(ops[0]?.ok).toBe(true);
    const allHeldAt = (ops[7] as { t: number }).t;
    const starved = ops.filter((o) => o.t >= allHeldAt && o.t < (ops[0] as { t: number }).t + 1000);
    expect(starved.length).toBeGreaterThan(10);
    expect(starved.every((o) => !o.ok)).toBe(true);
    // Over the run most operations fail, and fe never holds more than 8 slow calls a second.
    expect(r.operations.failed).toBeGreaterThan(0.6 * r.operations.offered);
    expect(calls(r)['fe -> dep']).toBeLessThanOrEqual(8 * 3);
    expect(service(r, 'fe').shed).toBeGreaterThan(r.operations.failed);
  });

  it.each([1, 2, 3])('threaded with a bulkhead of 4 on the dependency (seed %s): the healthy endpoint keeps being served', (seed) => {
    // At most 4 slow calls wait on dep; the others are refused at once (bulkhead-full), their
    // handlers fail and release their threads, so 4 of the 8 stay free for the healthy endpoint.
    const withBulkhead = { ...raw('threaded'), bulkheads: [{ caller: 'fe', callee: 'dep', maxConcurrent: 4 }] };
    const start = new Map<number, number>();
    const ok = new Map<number, boolean>();
    const r = run(withBulkhead, seed, (e) => {
      if (e.layer !== 0) return;
      if (e.event === 'call') start.set(e.op, e.tMs);
      if (e.event === 'give-up') ok.set(e.op, e.reason === 'success');
    });
    expect([...start.keys()].every((op) => ok.get(op) === true)).toBe(true);
    expect(r.operations).toMatchObject({ failed: 0, succeeded: r.operations.offered });
    // Most slow calls were refused by the bulkhead (their operations degraded); fe refused nothing.
    expect(calls(r)['fe -> dep']).toBeLessThanOrEqual(4 * 3);
    expect(r.operations.degraded).toBeGreaterThan(0.6 * r.operations.offered);
    expect(service(r, 'fe').shed).toBe(0);
  });

  it.each([1, 2, 3])('async with the default maxInFlight (seed %s): the healthy endpoint keeps being served', (seed) => {
    const { r, ops } = operations('async', seed);
    expect(ops.every((o) => o.ok)).toBe(true);
    expect(r.operations).toMatchObject({ failed: 0, succeeded: r.operations.offered });
    expect(calls(r)['fe -> dep']).toBe(r.operations.offered);
    expect(service(r, 'fe')).toMatchObject({ shed: 0, served: r.operations.offered });
  });
});

describe('what a failed handler answers upward', () => {
  it('maps every outcome to an outcome (the table is a record over the outcome names)', () => {
    const up = Object.fromEntries(Object.values(Outcome).map((o) => [OUTCOME_NAMES[o], OUTCOME_NAMES[upwardOutcome(o)]]));
    expect(up).toEqual({
      '200': '200',
      timeout: 'timeout',
      'deadline-exceeded': 'timeout',
      '503': '503',
      '429': '503',
      '500': '500',
      '400': '500',
      '404': '500',
      conflict: '500',
      overloaded: 'overloaded',
      throttled: '503',
      'circuit-open': '503',
      'budget-exhausted': '503',
      'bulkhead-full': '503',
      '502': '503',
      '504': 'timeout',
      reset: '503',
      'connect-failure': '503',
      'refused-stream': '503',
      cancelled: '500',
      unavailable: '503',
      'resource-exhausted': '503',
      aborted: '500',
      internal: '500',
      unknown: '500',
    });
  });
});

describe('outages during work (scripted leaves, zero hops: exact event logs)', () => {
  const entry = [{ name: 'app', policy: { maxAttempts: 2, backoff: { kind: 'none' }, perAttemptTimeoutMs: 30 } }];

  it("an outage of the backend during an async work step loses the handler: its caller's attempt times out", () => {
    // fe's backend goes down over [5, 15) while op 0's 10 ms work step is in service; the entry's
    // attempt times out at 30 and its retry is served over [30, 40).
    const raw = {
      workload: { kind: 'burst', clients: 1, entry: { service: 'fe' } },
      stack: entry,
      network: { hopMs: 0 },
      services: {
        fe: { fleet: { kind: 'server', concurrency: 1, serviceMs: 10, outages: [{ atMs: 5, durationMs: 10 }] }, endpoints: { page: { steps: [{ kind: 'work' }] } } },
      },
    };
    const { log, r } = entryLog(raw);
    expect(log).toEqual([
      [30, 0, 'outcome', 'timeout'],
      [40, 0, 'outcome', '200'],
      [40, 0, 'give-up', 'success'],
    ]);
    expect(service(r, 'fe')).toMatchObject({ served: 1, lost: 1 });
  });

  it("an outage while a threaded handler holds its worker through a call loses it; the call runs on with nothing waiting", () => {
    // Op 0 takes the worker at 0, works to 2 and calls db (20 ms); fe's backend is down over [10, 20).
    // The handler is lost at 10, its call runs on to 22; the entry's retry at 30 works to 32 and its call ends at 52.
    const raw = {
      workload: { kind: 'burst', clients: 1, entry: { service: 'fe' } },
      stack: entry,
      network: { hopMs: 0 },
      services: {
        fe: {
          fleet: { kind: 'server', concurrency: 1, serviceMs: 2, outages: [{ atMs: 10, durationMs: 10 }] },
          execution: 'threaded',
          endpoints: { page: { steps: [{ kind: 'work' }, { kind: 'call', calls: [{ service: 'db' }] }] } },
        },
        db: { fleet: { kind: 'script', script: ['200:20'] }, endpoints: { get: {} } },
      },
    };
    const { log, r } = entryLog(raw);
    expect(log).toEqual([
      [30, 0, 'outcome', 'timeout'],
      [52, 0, 'outcome', '200'],
      [52, 0, 'give-up', 'success'],
    ]);
    expect(calls(r)).toEqual({ 'workload -> fe': 2, 'fe -> db': 2 });
    // Busy: [0, 10) for the lost handler, [30, 52) for the second.
    expect(service(r, 'fe')).toMatchObject({ served: 1, lost: 1 });
    expect(service(r, 'fe').meanBusy).toBeCloseTo((10 + 22) / 52, 12);
  });
});
