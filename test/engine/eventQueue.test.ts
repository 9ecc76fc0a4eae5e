import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EventQueue } from '../../src/engine/eventQueue.js';
import { Simulator } from '../../src/engine/simulator.js';
import { Timers } from '../../src/engine/timers.js';

function drain(q: EventQueue): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  while (q.pop()) out.push([q.lastTimeMs, q.lastA]);
  return out;
}

describe('EventQueue', () => {
  it('pops events in time order', () => {
    const q = new EventQueue(2);
    [5, 1, 4, 2, 3].forEach((t, i) => q.push(t, 0, i, 0));
    expect(drain(q).map(([t]) => t)).toEqual([1, 2, 3, 4, 5]);
  });

  it('pops equal times first in, first out', () => {
    const q = new EventQueue(2);
    for (let i = 0; i < 100; i++) q.push(i % 2 === 0 ? 7 : 3, 0, i, 0);
    const out = drain(q);
    expect(out.slice(0, 50).map(([, a]) => a)).toEqual(Array.from({ length: 50 }, (_, i) => 2 * i + 1));
    expect(out.slice(50).map(([, a]) => a)).toEqual(Array.from({ length: 50 }, (_, i) => 2 * i));
  });

  it('matches a stable sort for any interleaving of pushes and pops', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.integer({ min: 0, max: 20 }), fc.constant(-1)), { maxLength: 300 }), (ops) => {
        const q = new EventQueue(1);
        const ref: Array<{ t: number; id: number }> = [];
        let id = 0;
        for (const op of ops) {
          if (op >= 0) {
            q.push(op, 1, id, 0);
            ref.push({ t: op, id: id++ });
          } else {
            ref.sort((a, b) => a.t - b.t || a.id - b.id);
            const want = ref.shift();
            const got = q.pop();
            expect(got).toBe(want !== undefined);
            if (want) expect([q.lastTimeMs, q.lastA]).toEqual([want.t, want.id]);
          }
        }
        ref.sort((a, b) => a.t - b.t || a.id - b.id);
        expect(drain(q)).toEqual(ref.map((r) => [r.t, r.id]));
      }),
    );
  });

  it('carries kind and payload words through', () => {
    const q = new EventQueue();
    q.push(1, 42, -7, 123456);
    q.pop();
    expect([q.lastKind, q.lastA, q.lastB]).toEqual([42, -7, 123456]);
  });

  it('carries every kind in [0, 256) and refuses others', () => {
    const q = new EventQueue(1);
    for (let k = 0; k < 256; k++) q.push(255 - k, k, k, k - 300);
    for (let k = 255; k >= 0; k--) {
      expect(q.pop()).toBe(true);
      expect([q.lastTimeMs, q.lastKind, q.lastA, q.lastB]).toEqual([255 - k, k, k, k - 300]);
    }
    for (const bad of [-1, 256, 1.5, NaN]) expect(() => q.push(0, bad, 0, 0)).toThrow(RangeError);
  });

  it('orders events at +Infinity and at -0/0 by insertion, not by empty slots', () => {
    const q = new EventQueue(2);
    const times = [Infinity, 0, Infinity, -0, 5, Infinity, 0];
    times.forEach((t, i) => q.push(t, i, i, 0));
    expect(drain(q).map(([, a]) => a)).toEqual([1, 3, 6, 4, 0, 2, 5]);
  });

  it('keeps size, peekTime, unpop and clear consistent with the popped hole', () => {
    const q = new EventQueue(2);
    expect(q.peekTime()).toBe(Infinity);
    q.push(3, 1, 3, 0);
    q.push(1, 2, 1, 0);
    q.push(2, 3, 2, 0);
    expect(q.size).toBe(3);
    expect(q.pop()).toBe(true);
    expect(q.size).toBe(2);
    expect(q.peekTime()).toBe(2);
    expect(q.pop()).toBe(true);
    q.unpop();
    expect(q.size).toBe(2);
    expect(q.pop()).toBe(true);
    expect([q.lastTimeMs, q.lastKind]).toEqual([2, 3]);
    q.clear();
    expect(q.size).toBe(0);
    expect(q.pop()).toBe(false);
    q.push(Infinity, 4, 9, 0);
    expect(q.pop()).toBe(true);
    expect([q.lastTimeMs, q.lastKind, q.lastA]).toEqual([Infinity, 4, 9]);
    expect(q.pop()).toBe(false);
  });

  it('matches a stable sort with few distinct times, kinds and payloads, across growth', () => {
    const op = fc.oneof(
      fc.record({ t: fc.oneof(fc.integer({ min: -3, max: 3 }), fc.constant(Infinity)), k: fc.integer({ min: 0, max: 255 }), b: fc.integer() }),
      fc.constant(null),
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 500 }), (ops) => {
        const q = new EventQueue(1);
        const ref: Array<{ t: number; k: number; id: number; b: number }> = [];
        const out: unknown[] = [];
        const want: unknown[] = [];
        let id = 0;
        const take = () => {
          ref.sort((x, y) => (x.t === y.t ? x.id - y.id : x.t < y.t ? -1 : 1));
          const r = ref.shift();
          expect(q.pop()).toBe(r !== undefined);
          if (r) {
            out.push([q.lastTimeMs, q.lastKind, q.lastA, q.lastB]);
            want.push([r.t, r.k, r.id, r.b]);
          }
        };
        for (const o of ops) {
          if (o === null) take();
          else {
            q.push(o.t, o.k, id, o.b);
            ref.push({ t: o.t, k: o.k, id: id++, b: o.b });
          }
        }
        while (ref.length > 0) take();
        expect(q.pop()).toBe(false);
        expect(out).toEqual(want);
      }),
    );
  });
});

describe('EventQueue lanes', () => {
  // Pushes to the heap and to lanes (in time order or not), pops, unpops and peeks, against a stable
  // sort of everything pushed: the order is the same as with the heap alone.
  it('pop in the same (time, seq) order as the heap alone, whatever goes to which lane', () => {
    const op = fc.oneof(
      fc.record({ t: fc.oneof(fc.integer({ min: 0, max: 6 }), fc.constant(Infinity)), lane: fc.integer({ min: -1, max: 2 }), k: fc.integer({ min: 0, max: 255 }) }),
      fc.constantFrom('pop' as const, 'pop' as const, 'unpop' as const, 'peek' as const),
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 400 }), fc.integer({ min: 1, max: 3 }), (ops, laneCount) => {
        const q = new EventQueue(1);
        for (let i = 0; i < laneCount; i++) expect(q.addLane()).toBe(i);
        const ref: Array<{ t: number; k: number; id: number }> = [];
        const sortRef = () => ref.sort((x, y) => (x.t === y.t ? x.id - y.id : x.t < y.t ? -1 : 1));
        let id = 0;
        let popped: { t: number; k: number; id: number } | null = null;
        // Times only move forward, as in a run: a push is not earlier than the last event popped.
        let now = -Infinity;
        for (const o of ops) {
          if (o === 'pop') {
            sortRef();
            const r = ref.shift();
            expect(q.pop()).toBe(r !== undefined);
            if (r) {
              expect([q.lastTimeMs, q.lastKind, q.lastA, q.lastB]).toEqual([r.t, r.k, r.id, 1000 - r.id]);
              now = r.t;
            }
            popped = r ?? null;
          } else if (o === 'unpop') {
            if (popped) {
              q.unpop();
              ref.push(popped);
              popped = null;
            }
          } else if (o === 'peek') {
            // unpop puts back only what the pop just before it took.
            popped = null;
            sortRef();
            expect(q.peekTime()).toBe(ref[0]?.t ?? Infinity);
            expect(q.size).toBe(ref.length);
          } else {
            const t = Math.max(o.t, now === -Infinity ? 0 : now);
            if (o.lane < 0 || o.lane >= laneCount) q.push(t, o.k, id, 1000 - id);
            else q.pushLane(o.lane, t, o.k, id, 1000 - id);
            ref.push({ t, k: o.k, id: id++ });
            popped = null;
          }
        }
        sortRef();
        for (const r of ref) {
          expect(q.pop()).toBe(true);
          expect([q.lastTimeMs, q.lastA]).toEqual([r.t, r.id]);
        }
        expect(q.pop()).toBe(false);
      }),
      { numRuns: 300 },
    );
  });

  it('keep events in time order out of the heap and send an earlier one to the heap', () => {
    const q = new EventQueue(4);
    const lane = q.addLane();
    q.pushLane(lane, 5, 1, 0, 0);
    q.pushLane(lane, 5, 1, 1, 0);
    q.pushLane(lane, 3, 1, 2, 0); // earlier than the lane's last: goes to the heap
    q.pushLane(-1, 9, 1, 5, 0); // a negative lane is the heap
    q.push(5, 1, 3, 0);
    q.pushLane(lane, 9, 1, 4, 0);
    expect(q.size).toBe(6);
    expect(drain(q).map(([, a]) => a)).toEqual([2, 0, 1, 3, 5, 4]);
    // A lane grows past its initial ring and is emptied by clear.
    for (let i = 0; i < 100; i++) q.pushLane(lane, 10 + i, 2, i, 0);
    expect(q.size).toBe(100);
    q.clear();
    expect(q.size).toBe(0);
    expect(q.pop()).toBe(false);
    // An unpop after a clear puts back nothing, whether the last pop came from a lane or the heap.
    q.pushLane(lane, 200, 2, 7, 0);
    expect(q.pop()).toBe(true);
    q.clear();
    q.unpop();
    expect(q.size).toBe(0);
    expect(q.pop()).toBe(false);
  });

  it('run through the simulator in the order of at()', () => {
    const order = (useLane: boolean): number[] => {
      const sim = new Simulator(0, 4);
      const lane = sim.addLane();
      const seen: number[] = [];
      // Each event schedules a timeout 10 ms later (in time order) and a random follow-up.
      let x = 7;
      const next = () => (x = (x * 1103515245 + 12345) % 2147483648) / 2147483648;
      sim.at(0, 1, 0, 0);
      sim.run(
        (kind, a, _b, t) => {
          seen.push(a * 10 + kind);
          if (kind !== 1 || a >= 300) return;
          if (useLane) sim.atInLane(lane, t + 10, 2, a, 0);
          else sim.at(t + 10, 2, a, 0);
          sim.at(t + Math.floor(next() * 4) * 5, 1, a + 1, 0);
        },
        { horizonMs: Infinity, maxEvents: 10_000 },
      );
      return seen;
    };
    const plain = order(false);
    expect(plain.length).toBeGreaterThan(500);
    expect(order(true)).toEqual(plain);
  });
});

describe('Timers (cancellation by tombstone)', () => {
  it('makes an armed event stale once cancelled or re-armed', () => {
    const t = new Timers(1);
    const g1 = t.arm(5);
    expect(t.isLive(5, g1)).toBe(true);
    t.cancel(5);
    expect(t.isLive(5, g1)).toBe(false);
    const g2 = t.arm(5);
    expect(t.isLive(5, g2)).toBe(true);
    const g3 = t.arm(5);
    expect(t.isLive(5, g2)).toBe(false);
    expect(t.isLive(5, g3)).toBe(true);
  });

  it('skips cancelled timers in a run', () => {
    const sim = new Simulator();
    const timers = new Timers(4);
    const fired: number[] = [];
    for (let slot = 0; slot < 4; slot++) sim.at(10 + slot, 1, slot, timers.arm(slot));
    timers.cancel(1);
    timers.cancel(3);
    sim.run((_k, a, b) => {
      if (timers.isLive(a, b)) fired.push(a);
    }, { horizonMs: Infinity, maxEvents: Infinity });
    expect(fired).toEqual([0, 2]);
  });
});

describe('Simulator', () => {
  it('runs to exhaustion and reports no truncation', () => {
    const sim = new Simulator();
    const seen: number[] = [];
    sim.at(1, 0, 0, 0);
    const stats = sim.run((_k, a, _b, t) => {
      seen.push(t);
      if (a < 4) sim.after(2, 0, a + 1, 0);
    }, { horizonMs: 100, maxEvents: 100 });
    expect(seen).toEqual([1, 3, 5, 7, 9]);
    expect(stats).toEqual({ events: 5, nowMs: 9, truncated: null });
  });

  it('stops at the horizon and says so', () => {
    const sim = new Simulator();
    sim.at(0, 0, 0, 0);
    const stats = sim.run(() => sim.after(10, 0, 0, 0), { horizonMs: 35, maxEvents: 1e9 });
    expect(stats).toEqual({ events: 4, nowMs: 35, truncated: 'horizon' });
  });

  it('stops at the event cap and says so', () => {
    const sim = new Simulator();
    sim.at(0, 0, 0, 0);
    const stats = sim.run(() => sim.after(1, 0, 0, 0), { horizonMs: Infinity, maxEvents: 1000 });
    expect(stats).toEqual({ events: 1000, nowMs: 999, truncated: 'event-cap' });
  });

  it('stops after the event whose handler asked it to, and says so; the next run starts afresh', () => {
    const sim = new Simulator();
    sim.at(0, 0, 0, 0);
    const seen: number[] = [];
    const handler = (_k: number, a: number, _b: number, t: number) => {
      seen.push(t);
      sim.after(1, 0, a + 1, 0);
      if (a === 2) sim.stop();
    };
    expect(sim.run(handler, { horizonMs: Infinity, maxEvents: 1000 })).toEqual({ events: 3, nowMs: 2, truncated: 'stopped' });
    expect(seen).toEqual([0, 1, 2]);
    expect(sim.queue.size).toBe(1);
    expect(sim.run(handler, { horizonMs: Infinity, maxEvents: 2 })).toEqual({ events: 2, nowMs: 4, truncated: 'event-cap' });
    expect(seen).toEqual([0, 1, 2, 3, 4]);
  });

  it('a stop wins over the bound that would have ended the run anyway: the horizon, or running dry', () => {
    const sim = new Simulator();
    sim.at(0, 0, 0, 0);
    sim.at(50, 0, 1, 0);
    expect(sim.run(() => sim.stop(), { horizonMs: 10, maxEvents: 1000 })).toEqual({ events: 1, nowMs: 0, truncated: 'stopped' });
    const dry = new Simulator();
    dry.at(0, 0, 0, 0);
    expect(dry.run(() => dry.stop(), { horizonMs: Infinity, maxEvents: 1000 })).toEqual({ events: 1, nowMs: 0, truncated: 'stopped' });
  });

  it('refuses to schedule into the past', () => {
    const sim = new Simulator(5);
    expect(() => sim.at(4, 0, 0, 0)).toThrow(/before now/);
  });

  it('can start before 0 (warm-up)', () => {
    const sim = new Simulator(-100);
    sim.at(-50, 0, 0, 0);
    const stats = sim.run(() => {}, { horizonMs: 0, maxEvents: 10 });
    expect(stats).toEqual({ events: 1, nowMs: -50, truncated: null });
  });
});
