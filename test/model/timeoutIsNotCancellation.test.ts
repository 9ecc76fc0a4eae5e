import { describe, expect, it } from 'vitest';
import {
  backoff,
  burst,
  constant,
  eventLog,
  layer,
  scenario,
  scripted,
  server,
  simulate,
  simulateTraced,
} from '../helpers/scenario.js';

/** One worker, constant 100 ms of service, callers that wait 30 ms per attempt. */
const slowServer = server({ concurrency: 1, serviceMs: constant(100) });
const impatient = (maxAttempts: number) => layer('client', { maxAttempts, perAttemptTimeoutMs: 30, backoff: backoff('none') });

describe('a timeout is not a cancellation', () => {
  it('the server finishes every abandoned request: 3 attempts of 30 ms leave 300 ms of wasted work', () => {
    const { results: r, timeline } = simulateTraced(scenario({ stack: [impatient(3)], leaf: slowServer }));
    expect(eventLog(timeline)).toEqual([
      [0, 'L0 call deadline=Infinity'],
      [0, 'L0 attempt 1 timeout=30'],
      [30, 'L0 outcome timeout'],
      [30, 'L0 wait 0'],
      [30, 'L0 attempt 2 timeout=30'],
      [60, 'L0 outcome timeout'],
      [60, 'L0 wait 0'],
      [60, 'L0 attempt 3 timeout=30'],
      [90, 'L0 outcome timeout'],
      [90, 'L0 give-up attempt-limit after 3'],
    ]);
    expect(r.giveUps['attempt-limit']).toBe(1);
    expect(r.completionTimeMs).toBe(90);
    // The three requests are served back to back after the caller left: [0,100), [100,200), [200,300).
    expect(r.leafCalls).toBe(3);
    expect(r.server.served).toBe(3);
    expect(r.server.cancelled).toBe(0);
    expect(r.server.wastedWorkMs).toBe(300);
    expect(r.simulatedMs).toBe(300);
  });

  it('with cancellation each timed-out attempt stops its request: 3 x 30 ms wasted, nothing served', () => {
    const r = simulate(scenario({ stack: [impatient(3)], leaf: slowServer, cancellation: true }));
    expect(r.giveUps['attempt-limit']).toBe(1);
    expect(r.completionTimeMs).toBe(90);
    expect(r.leafCalls).toBe(3);
    expect(r.server.served).toBe(0);
    expect(r.server.cancelled).toBe(3);
    expect(r.server.wastedWorkMs).toBe(90);
  });

  it('with a 5 ms hop each way the abandoned requests still run to the end (300 ms) unless cancelled (3 x 25 ms)', () => {
    const sc = scenario({ stack: [impatient(3)], leaf: slowServer, network: { hopMs: constant(5) } });
    const off = simulate(sc);
    expect(off.server.wastedWorkMs).toBe(300);
    expect(off.server.served).toBe(3);
    expect(off.simulatedMs).toBe(305);
    const on = simulate({ ...sc, cancellation: true });
    expect(on.server.wastedWorkMs).toBe(75);
    expect(on.server.cancelled).toBe(3);
    expect(on.server.served).toBe(0);
  });

  it('only the service of requests nobody waits for is wasted: a patient caller served first costs nothing', () => {
    // Client 0 is served [0,100) and succeeds; client 1 waits in the queue, gives up at 150 and is served [100,200).
    const sc = scenario({
      workload: burst(2),
      stack: [layer('client', { maxAttempts: 1, perAttemptTimeoutMs: 150 })],
      leaf: slowServer,
    });
    const off = simulate(sc);
    expect([off.operations.succeeded, off.operations.failed]).toEqual([1, 1]);
    expect(off.server.served).toBe(2);
    expect(off.server.wastedWorkMs).toBe(100);
    // Cancelled at 150, 50 ms into its service.
    const on = simulate({ ...sc, cancellation: true });
    expect([on.operations.succeeded, on.operations.failed]).toEqual([1, 1]);
    expect(on.server.served).toBe(1);
    expect(on.server.cancelled).toBe(1);
    expect(on.server.wastedWorkMs).toBe(50);
  });

  it('requests queued during an outage are withdrawn by cancellation, and served for nobody without it', () => {
    // Two clients arrive at 1 ms while the server is down until 1000 ms; each makes 2 attempts of 30 ms.
    const sc = scenario({
      workload: burst(2, { startMs: constant(1) }),
      stack: [impatient(2)],
      leaf: server({ concurrency: 1, serviceMs: constant(100), capacity: [{ atMs: 0, durationMs: 1000, concurrency: 0 }] }),
    });
    const off = simulate(sc);
    expect(off.giveUps['attempt-limit']).toBe(2);
    expect(off.completionTimeMs).toBe(61);
    expect(off.leafCalls).toBe(4);
    expect(off.server.maxQueue).toBe(4);
    expect(off.server.served).toBe(4);
    expect(off.server.wastedWorkMs).toBe(400);
    expect(off.simulatedMs).toBe(1400);

    const on = simulate({ ...sc, cancellation: true });
    expect(on.giveUps['attempt-limit']).toBe(2);
    expect(on.leafCalls).toBe(4);
    expect(on.server.maxQueue).toBe(2);
    expect(on.server.cancelled).toBe(4);
    expect(on.server.served).toBe(0);
    expect(on.server.wastedWorkMs).toBe(0);
  });

  it('three callers of one worker all leaving at 30 ms: 300 ms wasted without cancellation, 30 ms with it', () => {
    const sc = scenario({ workload: burst(3), stack: [impatient(1)], leaf: slowServer });
    const off = simulate(sc);
    expect(off.giveUps['attempt-limit']).toBe(3);
    expect(off.server.wastedWorkMs).toBe(300);
    expect(off.server.served).toBe(3);
    const on = simulate({ ...sc, cancellation: true });
    expect(on.giveUps['attempt-limit']).toBe(3);
    expect(on.server.wastedWorkMs).toBe(30);
    expect(on.server.cancelled).toBe(3);
    expect(on.server.served).toBe(0);
  });
});

describe('orphaned inner layers', () => {
  // The leaf answers 503 after 20 ms, always. The inner layer ignores the operation's deadline and
  // retries 5 times, 10 ms apart: attempts at 0, 30, 60, 90 and 120 ms, the last ending at 140.
  const always503 = scripted({ status: 503, durationMs: 20 });
  const outer = layer('app', { maxAttempts: 1, perAttemptTimeoutMs: 45 });
  const inner = (deadlineMode: 'none' | 'propagate') =>
    layer('sdk', { maxAttempts: 5, deadlineMode, backoff: backoff('constant', 10) });

  it('an inner layer whose caller timed out keeps retrying: 5 leaf calls for an operation that ended at 45 ms', () => {
    const r = simulate(scenario({ stack: [outer, inner('none')], leaf: always503 }));
    expect(r.giveUps['attempt-limit']).toBe(1);
    expect(r.operationMs.max).toBe(45);
    expect(r.leafCalls).toBe(5);
    expect(r.attempts[0]).toMatchObject({ first: 1, retries: 0 });
    expect(r.attempts[1]).toMatchObject({ first: 1, retries: 4 });
    expect(r.attempts[1]?.giveUps['attempt-limit']).toBe(1);
    expect(r.timeSeries.arrivalsRetry.reduce((a, b) => a + b, 0)).toBe(4);
  });

  it('the orphan timeline: the inner layer goes on for 95 ms after the outer one gave up', () => {
    const { timeline } = simulateTraced(scenario({ stack: [outer, inner('none')], leaf: always503 }));
    const log = eventLog(timeline);
    expect(log.filter(([, w]) => w.startsWith('L0'))).toEqual([
      [0, 'L0 call deadline=Infinity'],
      [0, 'L0 attempt 1 timeout=45'],
      [45, 'L0 outcome timeout'],
      [45, 'L0 give-up attempt-limit after 1'],
    ]);
    expect(log.filter(([, w]) => w.startsWith('L1 attempt')).map(([t]) => t)).toEqual([0, 30, 60, 90, 120]);
    expect(log[log.length - 1]).toEqual([140, 'L1 give-up attempt-limit after 5']);
  });

  it('with cancellation the inner layer stops with its caller: 2 leaf calls', () => {
    const r = simulate(scenario({ stack: [outer, inner('none')], leaf: always503, cancellation: true }));
    expect(r.giveUps['attempt-limit']).toBe(1);
    expect(r.leafCalls).toBe(2);
    expect(r.attempts[1]).toMatchObject({ first: 1, retries: 1 });
  });

  it('cancellation also stops an inner layer that is waiting between attempts', () => {
    // At 25 ms the inner layer is in its 10 ms backoff after the first 503.
    const r = simulate(
      scenario({
        stack: [layer('app', { maxAttempts: 1, perAttemptTimeoutMs: 25 }), inner('none')],
        leaf: always503,
        cancellation: true,
      }),
    );
    expect(r.leafCalls).toBe(1);
    expect(r.attempts[1]).toMatchObject({ first: 1, retries: 0 });
  });

  it('a propagated deadline bounds the orphan: the inner layer stops at the outer attempt end (2 leaf calls)', () => {
    const r = simulate(scenario({ stack: [outer, inner('propagate')], leaf: always503 }));
    expect(r.leafCalls).toBe(2);
    expect(r.attempts[1]).toMatchObject({ first: 1, retries: 1 });
    expect(r.attempts[1]?.giveUps['deadline']).toBe(1);
  });
});

describe('cancellation of a call still on its way to the next layer', () => {
  // app (2 attempts of 2 ms, no backoff) -> 5 ms hop -> sdk -> 5 ms hop -> a leaf that answers 200 at once.
  // Every app attempt times out while its call to the sdk is still crossing the hop, so it is cancelled there.
  const inFlight = (clients: number) =>
    scenario({
      workload: burst(clients),
      stack: [layer('app', { maxAttempts: 2, perAttemptTimeoutMs: 2, backoff: backoff('none') }), layer('sdk', { maxAttempts: 1 })],
      leaf: scripted({ status: 200, durationMs: 0 }),
      network: { hopMs: constant(5) },
      cancellation: true,
    });

  it('one client: both attempts time out, nothing reaches the leaf', () => {
    const { results: r, timeline } = simulateTraced(inFlight(1));
    expect(eventLog(timeline)).toEqual([
      [0, 'L0 call deadline=Infinity'],
      [0, 'L0 attempt 1 timeout=2'],
      [2, 'L0 outcome timeout'],
      [2, 'L0 wait 0'],
      [2, 'L0 attempt 2 timeout=2'],
      [4, 'L0 outcome timeout'],
      [4, 'L0 give-up attempt-limit after 2'],
    ]);
    expect(r.leafCalls).toBe(0);
    expect(r.operations.unfinished).toBe(0);
  });

  // A child frame still in its hop has no downstream call yet: cancelling it must not touch any
  // other frame (a never-used frame slot must not read as "child = frame 0").
  it('two clients: each makes its 2 attempts and both operations end', () => {
    const { results: r, timeline } = simulateTraced(inFlight(2));
    expect(r.operations).toEqual({ offered: 2, succeeded: 0, failed: 2, unfinished: 0 });
    expect(r.giveUps['attempt-limit']).toBe(2);
    expect(r.attempts[0]).toMatchObject({ first: 2, retries: 2 });
    expect(eventLog(timeline).filter(([, w]) => w.includes('attempt '))).toEqual([
      [0, 'L0 attempt 1 timeout=2'],
      [0, 'L0 attempt 1 timeout=2'],
      [2, 'L0 attempt 2 timeout=2'],
      [2, 'L0 attempt 2 timeout=2'],
    ]);
    expect(r.leafCalls).toBe(0);
  });
});
