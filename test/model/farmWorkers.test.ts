import { describe, expect, it } from 'vitest';
import { makeSampler } from '../../src/engine/distributions.js';
import { stream } from '../../src/engine/random.js';
import { Simulator } from '../../src/engine/simulator.js';
import { OUTCOME_NAMES, Outcome } from '../../src/policy/outcome.js';
import type { LastHop, LeafHost } from '../../src/model/leaves/Leaf.js';
import { ServerFarm } from '../../src/model/leaves/server/ServerFarm.js';
import { Measurements } from '../../src/model/Measurements.js';
import { R_HANDLER, R_HOP, RequestTable, WORK_HOLD } from '../../src/model/RequestTable.js';
import type { Dist, PoolLeaf, ServerLeaf } from '../../src/model/scenario.js';
import { constant, scenario, server } from '../helpers/scenario.js';

/**
 * The farm's side of a service's handlers (pinned backends, per-request service times, held
 * workers), driven by a fake host on a real Simulator: the host logs what the farm tells it, and
 * plays a threaded handler on each held worker (one `work` step timed by the farm's draw, then a
 * downstream call of a fixed length, then the worker is released).
 */

/** The farm's kinds start here; the host's own events are below. */
const KIND_BASE = 10;
const K_ARRIVE = 0;
const K_STEP_DONE = 1;
const K_RELEASE = 2;
const K_ANSWERED = 3;
const K_WITHDRAW = 4;

interface RequestPlan {
  atMs: number;
  /** Pin the request to a backend picked on arrival (a handler's request). */
  pin?: boolean;
  /** Hold the worker (a threaded handler): one work step, then a call of `callMs`, then release. */
  hold?: boolean;
  callMs?: number;
  /** The `work` sampler of the request's step (0: the backend's own). */
  work?: number;
  /** A second work step of the same request, handed to the farm at this time. */
  againAtMs?: number;
  /** The handler answers at this time (pinned requests: it settles its backend). */
  answerAtMs?: number;
}

class Rig implements LeafHost {
  readonly sim = new Simulator(0);
  readonly req = new RequestTable(4);
  readonly log: Array<[number, string]> = [];
  readonly farm: ServerFarm;
  /** Requests nothing waits for any more. */
  readonly unwanted = new Set<number>();
  private readonly names = new Map<number, string>();
  private readonly plans = new Map<number, RequestPlan>();
  /** Held requests lost or withdrawn: their handler's timers are void. */
  private readonly gone = new Set<number>();

  constructor(leaf: ServerLeaf | PoolLeaf, seed = 7) {
    const m = new Measurements(scenario({ leaf }), false);
    this.farm = new ServerFarm(
      leaf,
      { sim: this.sim, req: this.req, host: this, measurements: m, kindBase: KIND_BASE, seed, startMs: 0, binMs: 1000 },
      { badInput: false, avoidHosts: false, shortcuts: true },
    );
  }

  /** A request named `name`, handed to the farm at `plan.atMs`; returns its slot. */
  add(name: string, plan: RequestPlan): number {
    const req = this.req;
    const r = req.alloc();
    req.plain(r);
    req.state[r] = R_HOP;
    req.parent[r] = -1;
    req.client[r] = 0;
    req.bad[r] = 0;
    req.chain[r] = 0;
    req.deadline[r] = Infinity;
    req.retryAfter[r] = NaN;
    req.backend[r] = -1;
    req.lbOpen[r] = 0;
    req.work[r] = plan.hold ? WORK_HOLD : (plan.work ?? 0);
    this.names.set(r, name);
    this.plans.set(r, plan);
    this.sim.at(plan.atMs, K_ARRIVE, r, 0);
    if (plan.againAtMs !== undefined) this.sim.at(plan.againAtMs, K_ARRIVE, r, 1);
    if (plan.answerAtMs !== undefined) this.sim.at(plan.answerAtMs, K_ANSWERED, r, 0);
    return r;
  }

  private name(r: number): string {
    return this.names.get(r) as string;
  }

  private note(t: number, what: string): void {
    this.log.push([t, what]);
  }

  /** Run to the end; returns the time of the last event. */
  run(): number {
    this.farm.start(0);
    const stats = this.sim.run(
      (kind, a, b, t) => {
        if (kind >= KIND_BASE) this.farm.dispatch(kind - KIND_BASE, a, b, t, true);
        else this.hostEvent(kind, a, b, t);
      },
      { horizonMs: 1e9, maxEvents: 1e6 },
    );
    this.farm.finish(stats.nowMs);
    return stats.nowMs;
  }

  private hostEvent(kind: number, r: number, again: number, t: number): void {
    const plan = this.plans.get(r) as RequestPlan;
    switch (kind) {
      case K_ARRIVE:
        this.req.state[r] = R_HOP;
        // A handler's request is pinned once, on arrival; the others are routed as a layer routes them.
        if (!plan.pin) this.farm.route(r, r, 1);
        else if (again === 0) this.note(t, `${this.name(r)} pinned to b${this.farm.pickBackend(r)}`);
        this.farm.arrive(r, t);
        return;
      case K_STEP_DONE:
        if (this.gone.has(r)) return;
        this.note(t, `${this.name(r)} work done, calls for ${plan.callMs ?? 0}`);
        this.sim.at(t + (plan.callMs ?? 0), K_RELEASE, r, 0);
        return;
      case K_RELEASE:
        if (this.gone.has(r)) return;
        this.note(t, `${this.name(r)} releases its worker`);
        this.farm.releaseWorker(r, t);
        return;
      case K_WITHDRAW:
        this.farm.withdraw(r, t);
        return;
      case K_ANSWERED:
        this.note(t, `${this.name(r)} handler answers`);
        this.farm.handlerAnswered(r, Outcome.SUCCESS, t);
        return;
    }
  }

  respond(r: number, outcome: number, retryAfterMs: number, t: number): void {
    this.note(t, `${this.name(r)} ${OUTCOME_NAMES[outcome]} at b${this.req.backend[r]}${Number.isNaN(retryAfterMs) ? '' : ` ra=${retryAfterMs}`}`);
    this.req.state[r] = R_HANDLER;
  }

  stillWanted(r: number): boolean {
    return !this.unwanted.has(r);
  }

  drop(r: number, t: number): void {
    this.note(t, `${this.name(r)} lost at b${this.req.backend[r]}`);
    this.gone.add(r);
    this.req.state[r] = R_HANDLER;
  }

  release(r: number): void {
    this.note(this.sim.nowMs, `${this.name(r)} released`);
    this.gone.add(r);
    this.req.release(r);
  }

  lastHop(): LastHop {
    return { stream: { client: 0 }, sample: { sample: () => 0 } };
  }

  workerTaken(r: number, b: number, t: number): void {
    const plan = this.plans.get(r) as RequestPlan;
    const d = this.farm.drawServiceMs(b, plan.work ?? 0);
    this.note(t, `${this.name(r)} takes a worker at b${b}, works ${d}`);
    this.sim.at(t + d, K_STEP_DONE, r, 0);
  }
}

function pool(loadBalancer: PoolLeaf['loadBalancer'], backends: ServerLeaf[]): PoolLeaf {
  return { kind: 'pool', clusters: [{ name: 'c', backends }], loadBalancer, overprovisioningFactor: 1.4, panicThresholdPercent: 50 };
}

describe('pinned backends', () => {
  it('a pinned request is served at its backend, and its work steps ask the load balancer nothing', () => {
    // Round robin over 3 backends: the handler's one pick at arrival takes b0; both its work steps
    // stay there, and the plain requests' round robin goes on as if they had not been sent.
    const rig = new Rig(pool('round-robin', [server(), server(), server()]));
    rig.add('h', { atMs: 0, pin: true, againAtMs: 30 });
    rig.add('p1', { atMs: 0 });
    rig.add('p2', { atMs: 0 });
    rig.add('p3', { atMs: 0 });
    rig.add('p4', { atMs: 30 });
    rig.run();
    expect(rig.log).toEqual([
      [0, 'h pinned to b0'],
      [10, 'h 200 at b0'],
      [10, 'p1 200 at b1'],
      [10, 'p2 200 at b2'],
      [20, 'p3 200 at b0'],
      [40, 'h 200 at b0'],
      [40, 'p4 200 at b1'],
    ]);
  });

  it('a pinned request counts as outstanding at its backend from its pick until its handler answers', () => {
    // Least outstanding over 2 backends (ties to the first): h holds b0's count through its work
    // step's answer at 10 and until its handler answers at 25, so p2 at 20 goes to b1 and p3 at 30 to b0.
    const rig = new Rig(pool('least-outstanding', [server(), server()]));
    rig.add('h', { atMs: 0, pin: true, answerAtMs: 25 });
    rig.add('p1', { atMs: 0 });
    rig.add('p2', { atMs: 20 });
    rig.add('p3', { atMs: 30 });
    rig.run();
    expect(rig.log).toEqual([
      [0, 'h pinned to b0'],
      [10, 'h 200 at b0'],
      [10, 'p1 200 at b1'],
      [25, 'h handler answers'],
      [30, 'p2 200 at b1'],
      [40, 'p3 200 at b0'],
    ]);
  });
});

describe('per-request service times', () => {
  const exp10: Dist = { dist: 'exponential', mean: 10 };
  const uni: Dist = { dist: 'uniform', min: 1, max: 3 };
  /** The first n draws of a sampler of `d` on stream (seed, ...names). */
  const draws = (d: Dist, n: number, ...names: string[]) => {
    const s = makeSampler(d, stream(7, ...names));
    return Array.from({ length: n }, () => s.sample());
  };

  it("a request's work sampler draws from its step's own stream; the backend's `service` stream keeps its order", () => {
    const withStep = new Rig(server({ concurrency: 'unlimited', serviceMs: exp10 }));
    const k = withStep.farm.registerWork(uni, 'api/0');
    withStep.add('p1', { atMs: 0 });
    withStep.add('w1', { atMs: 1, work: k });
    withStep.add('p2', { atMs: 2 });
    withStep.add('w2', { atMs: 3, work: k });
    withStep.add('p3', { atMs: 4 });
    withStep.run();
    const [s1, s2, s3] = draws(exp10, 3, 'service') as [number, number, number];
    const [u1, u2] = draws(uni, 2, 'work', 'api/0') as [number, number];
    const expected: Array<[number, string]> = [
      [s1, 'p1 200 at b0'],
      [1 + u1, 'w1 200 at b0'],
      [2 + s2, 'p2 200 at b0'],
      [3 + u2, 'w2 200 at b0'],
      [4 + s3, 'p3 200 at b0'],
    ];
    expect(withStep.log).toEqual(expected.sort((a, b) => a[0] - b[0]));

    // The same plain requests without the step's requests: the same service times.
    const without = new Rig(server({ concurrency: 'unlimited', serviceMs: exp10 }));
    without.farm.registerWork(uni, 'api/0');
    without.add('p1', { atMs: 0 });
    without.add('p2', { atMs: 2 });
    without.add('p3', { atMs: 4 });
    without.run();
    expect(without.log).toEqual(withStep.log.filter(([, w]) => w.startsWith('p')));
  });

  it("steps' streams are named, not numbered: registering another step first changes no draw", () => {
    const a = new Rig(server({ concurrency: 'unlimited', serviceMs: exp10 }));
    const ka = a.farm.registerWork(exp10, 'api/1');
    a.add('w', { atMs: 0, work: ka });
    a.run();
    const b = new Rig(server({ concurrency: 'unlimited', serviceMs: exp10 }));
    b.farm.registerWork(uni, 'api/0');
    const kb = b.farm.registerWork(exp10, 'api/1');
    b.add('w', { atMs: 0, work: kb });
    b.run();
    expect(kb).toBe(ka + 1);
    expect(b.log).toEqual(a.log);
    expect(a.log).toEqual([[draws(exp10, 1, 'work', 'api/1')[0] as number, 'w 200 at b0']]);
    expect(() => b.farm.registerWork(uni, 'api/0')).toThrow(/api\/0 registered twice/);
  });

  it("a step's constant service time on a backend with a constant one finishes in time order, degraded alike", () => {
    // Backend: 10 ms, +1 ms per request in service (linear degradation); the step: 3 ms.
    const rig = new Rig(server({ concurrency: 'unlimited', serviceMs: constant(10), degradation: { kind: 'linear', perInFlightMs: 1 } }));
    const k = rig.farm.registerWork(constant(3), 'api/0');
    rig.add('p1', { atMs: 0 });
    rig.add('w1', { atMs: 1, work: k });
    rig.add('p2', { atMs: 2 });
    rig.run();
    expect(rig.log).toEqual([
      [1 + 3 + 2, 'w1 200 at b0'],
      [0 + 10 + 1, 'p1 200 at b0'],
      [2 + 10 + 3, 'p2 200 at b0'],
    ]);
  });
});

describe('held workers (threaded handlers)', () => {
  // 2 workers, a queue of 2, 10 ms of service. h1 and h2 hold both workers (10 ms of work, then a
  // downstream call); p1 and h3 queue behind them; p2 finds the queue full while every worker is held.
  const threaded = () => {
    const rig = new Rig(server({ concurrency: 2, queueLimit: 2, serviceMs: constant(10) }));
    const h1 = rig.add('h1', { atMs: 0, pin: true, hold: true, callMs: 30 });
    const h2 = rig.add('h2', { atMs: 0, pin: true, hold: true, callMs: 50 });
    rig.add('p1', { atMs: 5 });
    rig.add('h3', { atMs: 6, pin: true, hold: true, callMs: 20 });
    rig.add('p2', { atMs: 7 });
    return { rig, h1, h2 };
  };

  it('are taken at service start (the host is told), queue others behind them, refuse at queueLimit, and a release pumps the queue', () => {
    const { rig } = threaded();
    const end = rig.run();
    expect(rig.log).toEqual([
      [0, 'h1 pinned to b0'],
      [0, 'h1 takes a worker at b0, works 10'],
      [0, 'h2 pinned to b0'],
      [0, 'h2 takes a worker at b0, works 10'],
      [6, 'h3 pinned to b0'],
      [7, 'p2 503 at b0'],
      [10, 'h1 work done, calls for 30'],
      [10, 'h2 work done, calls for 50'],
      [40, 'h1 releases its worker'],
      [50, 'p1 200 at b0'],
      [50, 'h3 takes a worker at b0, works 10'],
      [60, 'h2 releases its worker'],
      [60, 'h3 work done, calls for 20'],
      [80, 'h3 releases its worker'],
    ]);
    expect(end).toBe(80);
    const totals = rig.farm.totals();
    // Busy: both workers over [0, 60) (h1 and h2; p1 then h3 beside h2 from 40), h3 alone over [60, 80).
    expect(totals.meanBusy).toBeCloseTo((2 * 60 + 1 * 20) / 80, 12);
    expect(totals.served).toBe(4);
    expect(totals.shed).toBe(1);
    expect(totals.maxQueue).toBe(2);
    expect(totals.wastedWorkMs).toBe(0);
    expect(totals.inServiceAtEnd).toBe(0);
  });

  it("a held worker's whole holding time is wasted work when nothing waits for its request at release", () => {
    const { rig, h2 } = threaded();
    rig.unwanted.add(h2);
    rig.run();
    expect(rig.farm.totals().wastedWorkMs).toBe(60);
  });

  it('a released request is with its handler (R_HANDLER); releasing a worker it does not hold is an error', () => {
    const { rig, h1 } = threaded();
    rig.run();
    expect(rig.req.state[h1]).toBe(R_HANDLER);
    expect(() => rig.farm.releaseWorker(h1, 80)).toThrow(/holds no worker/);
  });

  it("an outage while workers are held loses their requests through host.drop (and the queue's), and frees the workers", () => {
    const rig = new Rig(server({ concurrency: 1, queueLimit: 'unlimited', serviceMs: constant(10), outages: [{ atMs: 20, durationMs: 10 }] }));
    rig.add('h1', { atMs: 0, pin: true, hold: true, callMs: 100 });
    rig.add('p1', { atMs: 5 });
    rig.add('h2', { atMs: 40, pin: true, hold: true, callMs: 0 });
    rig.run();
    expect(rig.log).toEqual([
      [0, 'h1 pinned to b0'],
      [0, 'h1 takes a worker at b0, works 10'],
      [10, 'h1 work done, calls for 100'],
      [20, 'p1 lost at b0'],
      [20, 'h1 lost at b0'],
      [40, 'h2 pinned to b0'],
      [40, 'h2 takes a worker at b0, works 10'],
      [50, 'h2 work done, calls for 0'],
      [50, 'h2 releases its worker'],
    ]);
    const totals = rig.farm.totals();
    expect(totals.lost).toBe(2);
    expect(totals.served).toBe(1);
    expect(totals.meanBusy).toBeCloseTo((20 + 10) / 110, 12);
  });

  it('a crash (the queue past its threshold) loses the held requests too', () => {
    const rig = new Rig(server({ concurrency: 1, serviceMs: constant(10), crash: { queueAbove: 1, restartMs: 100 } }));
    rig.add('h1', { atMs: 0, pin: true, hold: true, callMs: 100 });
    rig.add('p1', { atMs: 5 });
    rig.add('p2', { atMs: 6 });
    rig.add('p3', { atMs: 7 });
    rig.run();
    expect(rig.log).toEqual([
      [0, 'h1 pinned to b0'],
      [0, 'h1 takes a worker at b0, works 10'],
      [6, 'p1 lost at b0'],
      [6, 'p2 lost at b0'],
      [6, 'h1 lost at b0'],
      [7, 'p3 503 at b0'],
    ]);
    expect(rig.farm.totals().lost).toBe(3);
  });

  it('a withdrawn held request frees its worker, counts its holding time as wasted, and the queue moves on', () => {
    const rig = new Rig(server({ concurrency: 1, serviceMs: constant(10) }));
    const h1 = rig.add('h1', { atMs: 0, pin: true, hold: true, callMs: 100 });
    rig.add('p1', { atMs: 5 });
    rig.sim.at(30, K_WITHDRAW, h1, 0);
    rig.run();
    expect(rig.log).toEqual([
      [0, 'h1 pinned to b0'],
      [0, 'h1 takes a worker at b0, works 10'],
      [10, 'h1 work done, calls for 100'],
      [30, 'h1 released'],
      [40, 'p1 200 at b0'],
    ]);
    const totals = rig.farm.totals();
    expect(totals.wastedWorkMs).toBe(30);
    expect(totals.cancelled).toBe(1);
  });
});
