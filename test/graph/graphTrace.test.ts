import { describe, expect, it } from 'vitest';
import { resolveScenario } from '../../src/experiment/index.js';
import { Model } from '../../src/model/Model.js';
import type { TraceEvent } from '../../src/model/trace.js';
import { cli, tempDir, writeExperiment } from '../cli/helpers.js';

/**
 * fe works 3 ms, then calls users (its sdk retries a 503 after 5 ms) and recs (optional; answers 500)
 * together, joined by all; hops of 1 ms. users answers its first attempt 503 at 8 (sent at 4, 2 ms
 * at the script) and its second, sent at 13, 200 at 17; recs fails at 10, which does not decide the
 * step: the join decides at 17, degraded, and fe answers 200, which reaches app at 18.
 */
const fanOut = {
  name: 'trace-graph',
  scenario: {
    workload: { kind: 'burst', clients: 1, entry: { service: 'fe' } },
    stack: [{ name: 'app', policy: { maxAttempts: 2, backoff: { kind: 'constant', baseMs: 10 } } }],
    network: { hopMs: 1 },
    services: {
      fe: {
        fleet: { kind: 'server', concurrency: 2, serviceMs: 3 },
        endpoints: {
          page: {
            steps: [
              { kind: 'work' },
              {
                kind: 'call',
                calls: [
                  { service: 'users', stack: [{ name: 'sdk', policy: { maxAttempts: 3, backoff: { kind: 'constant', baseMs: 5 } } }] },
                  { service: 'recs', optional: true },
                ],
              },
            ],
          },
        },
      },
      users: { fleet: { kind: 'script', script: ['503:2', '200:2'] }, endpoints: { get: {} } },
      recs: { fleet: { kind: 'script', script: ['500:4'] }, endpoints: { get: {} } },
    },
  },
};

/** Every stack one level deeper than its caller's handler: fe calls mid (any), mid calls db through sdk over proxy (2 attempts); db answers 503 after 1 ms; zero hops. */
const deep = {
  name: 'trace-deep',
  scenario: {
    workload: { kind: 'burst', clients: 1, entry: { service: 'fe' } },
    stack: [{ name: 'app', policy: { maxAttempts: 1 } }],
    network: { hopMs: 0 },
    services: {
      fe: { fleet: { kind: 'server', serviceMs: 1 }, endpoints: { page: { steps: [{ kind: 'call', join: 'any', calls: [{ service: 'mid', stack: [{ name: 'to-mid', policy: { maxAttempts: 1 } }] }] }] } } },
      mid: {
        fleet: { kind: 'server', serviceMs: 1 },
        endpoints: {
          get: {
            steps: [
              {
                kind: 'call',
                calls: [{ service: 'db', stack: [{ name: 'sdk', policy: { maxAttempts: 1 } }, { name: 'proxy', policy: { maxAttempts: 2, backoff: { kind: 'none' } } }] }],
              },
            ],
          },
        },
      },
      db: { fleet: { kind: 'script', script: ['503:1'] }, endpoints: { get: {} } },
    },
  },
};

describe('trace through a service graph: handlers, their steps and joins, and each call\'s layers, indented by call depth', () => {
  it('a fan-out with an optional call that fails: the join waits for the required call and decides degraded', async () => {
    const file = writeExperiment(tempDir(), 't.json', fanOut);
    const r = await cli(['trace', file]);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(r.out.split('\n').filter((l) => l !== '')).toEqual([
      't=0         app: call received (deadline none)',
      't=0         app: attempt 1 starts, timeout none',
      't=1           fe.page: request received, handler starts',
      't=1           fe.page: step 1: work',
      't=4           fe.page: step 2: calls users.get, recs.get (optional) (join all)',
      't=4             sdk (fe -> users.get): call received (deadline none)',
      't=4             sdk (fe -> users.get): attempt 1 starts, timeout none',
      't=4             client (fe -> recs.get): call received (deadline none)',
      't=4             client (fe -> recs.get): attempt 1 starts, timeout none',
      't=8             sdk (fe -> users.get): attempt 1 -> 503',
      't=8             sdk (fe -> users.get): backoff for retry 1: ceiling 5 ms, drawn 5 ms, wait 5 ms until t=13',
      't=10            client (fe -> recs.get): attempt 1 -> 500',
      't=10            client (fe -> recs.get): ends: attempt-limit after 1 attempt (returns 500)',
      't=13            sdk (fe -> users.get): attempt 2 starts, timeout none',
      't=17            sdk (fe -> users.get): attempt 2 -> 200',
      't=17            sdk (fe -> users.get): ends: success after 2 attempts (returns 200)',
      't=17          fe.page: step 2: join all decides success (degraded)',
      't=17          fe.page: answers 200',
      't=18        app: attempt 1 -> 200',
      't=18        app: ends: success after 1 attempt (returns 200)',
      'outcome: success after 1 attempt at t=18 ms',
    ]);
  });

  it('two levels of calls: the failure travels up through each join and handler', async () => {
    const file = writeExperiment(tempDir(), 't.json', deep);
    const r = await cli(['trace', file]);
    expect(r.code).toBe(0);
    expect(r.out.split('\n').filter((l) => l !== '')).toEqual([
      't=0         app: call received (deadline none)',
      't=0         app: attempt 1 starts, timeout none',
      't=0           fe.page: request received, handler starts',
      't=0           fe.page: step 1: calls mid.get (join any)',
      't=0             to-mid (fe -> mid.get): call received (deadline none)',
      't=0             to-mid (fe -> mid.get): attempt 1 starts, timeout none',
      't=0               mid.get: request received, handler starts',
      't=0               mid.get: step 1: calls db.get (join all)',
      't=0                 sdk (mid -> db.get): call received (deadline none)',
      't=0                 sdk (mid -> db.get): attempt 1 starts, timeout none',
      't=0                   proxy (mid -> db.get): call received (deadline none)',
      't=0                   proxy (mid -> db.get): attempt 1 starts, timeout none',
      't=1                   proxy (mid -> db.get): attempt 1 -> 503',
      't=1                   proxy (mid -> db.get): backoff for retry 1: ceiling 0 ms, drawn 0 ms, wait 0 ms until t=1',
      't=1                   proxy (mid -> db.get): attempt 2 starts, timeout none',
      't=2                   proxy (mid -> db.get): attempt 2 -> 503',
      't=2                   proxy (mid -> db.get): ends: attempt-limit after 2 attempts (returns 503)',
      't=2                 sdk (mid -> db.get): attempt 1 -> 503',
      't=2                 sdk (mid -> db.get): ends: attempt-limit after 1 attempt (returns 503)',
      't=2               mid.get: step 1: join all decides failure',
      't=2               mid.get: answers 503',
      't=2             to-mid (fe -> mid.get): attempt 1 -> 503',
      't=2             to-mid (fe -> mid.get): ends: attempt-limit after 1 attempt (returns 503)',
      't=2           fe.page: step 1: join any decides failure',
      't=2           fe.page: answers 503',
      't=2         app: attempt 1 -> 503',
      't=2         app: ends: attempt-limit after 1 attempt (returns 503)',
      'outcome: attempt-limit after 1 attempt at t=2 ms',
    ]);
  });

  it('several workloads: --workload picks the one to follow (default the first), and the flags apply to it', async () => {
    // web (GET) enters fe, which calls db through a stack of 2 attempts; batch (POST) enters db directly through job (3 attempts);
    // db answers 503 after 1 ms, zero hops. A POST is not retried after a 503 (RFC 9110 section 9.2.2).
    const two = {
      name: 'trace-workloads',
      scenario: {
        workloads: {
          web: { kind: 'open', rate: 10, durationMs: 1000, entry: { service: 'fe' }, stack: [{ name: 'browser', policy: { maxAttempts: 1 } }] },
          batch: { kind: 'burst', clients: 5, method: 'POST', entry: { service: 'db' }, stack: [{ name: 'job', policy: { maxAttempts: 3, backoff: { kind: 'none' } } }] },
        },
        network: { hopMs: 0 },
        services: {
          fe: { fleet: { kind: 'server', serviceMs: 1 }, endpoints: { page: { steps: [{ kind: 'call', calls: [{ service: 'db', stack: [{ name: 'sdk', policy: { maxAttempts: 2, backoff: { kind: 'none' } } }] }] }] } } },
          db: { fleet: { kind: 'script', script: ['503:1'] }, endpoints: { get: {} } },
        },
      },
    };
    const file = writeExperiment(tempDir(), 'w.json', two);
    const first = await cli(['trace', file]);
    expect(first.code).toBe(0);
    expect(first.out.split('\n').filter((l) => l.includes('browser:') || l.startsWith('outcome'))).toEqual([
      't=0         browser: call received (deadline none)',
      't=0         browser: attempt 1 starts, timeout none',
      't=2         browser: attempt 1 -> 503',
      't=2         browser: ends: attempt-limit after 1 attempt (returns 503)',
      'outcome: attempt-limit after 1 attempt at t=2 ms',
    ]);
    const batch = await cli(['trace', file, '--workload', 'batch']);
    expect(batch.code).toBe(0);
    expect(batch.out.split('\n').filter((l) => l !== '')).toEqual([
      't=0         job: call received (deadline none)',
      't=0         job: attempt 1 starts, timeout none',
      't=1         job: attempt 1 -> 503',
      't=1         job: ends: not-retryable after 1 attempt (returns 503)',
      'outcome: not-retryable after 1 attempt at t=1 ms',
    ]);
    const get = await cli(['trace', file, '--workload', 'batch', '--method', 'GET', '--json']);
    expect(JSON.parse(get.out).attempts).toBe(3);
    const wrong = await cli(['trace', file, '--workload', 'nightly']);
    expect([wrong.code, wrong.err.trim()]).toEqual([2, 'error: --workload must name one of scenario.workloads (got "nightly"; the workloads are web, batch)']);
    const single = await cli(['trace', writeExperiment(tempDir(), 'd.json', deep), '--workload', 'web']);
    expect([single.code, single.err.trim()]).toEqual([2, 'error: --workload needs a scenario with several workloads (scenario.workloads); this one has none']);
  });

  it('tracing a graph leaves its results unchanged, and every event carries the operation', () => {
    const resolved = resolveScenario({ ...fanOut.scenario, workload: { kind: 'burst', clients: 4, entry: { service: 'fe' } } });
    if (!resolved.ok) throw new Error(resolved.errors.join('\n'));
    const events: TraceEvent[] = [];
    const traced = new Model(resolved.scenario, { seed: 2, trace: (e) => events.push(e), traceGraph: true }).run();
    expect(traced).toEqual(new Model(resolved.scenario, { seed: 2 }).run());
    // Without traceGraph the trace is the workload's stack's alone, as in a stack run.
    const entryOnly: TraceEvent[] = [];
    new Model(resolved.scenario, { seed: 2, trace: (e) => entryOnly.push(e) }).run();
    expect(entryOnly.length).toBeGreaterThan(0);
    expect(entryOnly.filter((e) => 'service' in e || e.site !== undefined)).toEqual([]);
    // Each of the 4 operations: one handler at fe, its answer, and the calls of both call sites.
    for (let op = 0; op < 4; op++) {
      const mine = events.filter((e) => e.op === op);
      expect(mine.filter((e) => e.event === 'handler').length).toBe(1);
      expect(mine.filter((e) => e.event === 'answer').length).toBe(1);
      expect(mine.filter((e) => e.event === 'call' && e.site !== undefined).map((e) => (e.event === 'call' ? e.site?.callee : ''))).toEqual(['users', 'recs']);
    }
  });
});
