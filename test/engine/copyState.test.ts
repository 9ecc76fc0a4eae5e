import { describe, expect, it } from 'vitest';
import { copyState, SnapshotError, stateProblems } from '../../src/engine/copyState.js';
import { ClientRandom, clientStream, copyStream, deriveSeed, NamedSeed, stateless, stream, streamOrigin, type SeedingMode, type StreamRule, type Uniform } from '../../src/engine/random.js';
import { Simulator } from '../../src/engine/simulator.js';

const ORIGINAL: StreamRule = { kind: 'original' };
const draws = (u: Uniform, n: number) => Array.from({ length: n }, () => u());
const clientDraws = (r: ClientRandom, client: number, n: number) => Array.from({ length: n }, () => r.next(client));

class Node {
  next: Node | null = null;
  constructor(readonly id: number) {}
  label(): string {
    return `node ${this.id}`;
  }
}

describe('copyState: the kinds of a run state', () => {
  it('keeps shared references shared, cycles, prototypes, Map and Set entries, and holes', () => {
    const a = new Node(1);
    const b = new Node(2);
    a.next = b;
    b.next = a;
    const key = { name: 'k' };
    const sym = Symbol('s');
    // A hole at index 1.
    const list: Array<Node | undefined> = [a];
    list[2] = b;
    const root = {
      a,
      b,
      list,
      byKey: new Map<unknown, unknown>([[key, a], ['text', 3]]),
      set: new Set<unknown>([key, b]),
      key,
      frozen: Object.freeze({ x: 1 }),
      [sym]: 'symbol field',
    };
    const c = copyState(root, { streams: ORIGINAL });
    expect(c).not.toBe(root);
    expect(c.a).not.toBe(a);
    expect(c.a).toBeInstanceOf(Node);
    expect(c.a.label()).toBe('node 1');
    expect(c.a.next).toBe(c.b);
    expect(c.b.next).toBe(c.a);
    expect(c.list[0]).toBe(c.a);
    expect(c.list[2]).toBe(c.b);
    expect(1 in c.list).toBe(false);
    expect(c.list).toHaveLength(3);
    expect(c.key).not.toBe(key);
    expect(c.byKey.get(c.key)).toBe(c.a);
    expect(c.byKey.get('text')).toBe(3);
    expect([...c.byKey.keys()]).toEqual([c.key, 'text']);
    expect([...c.set]).toEqual([c.key, c.b]);
    expect([...c.set][0]).toBe(c.key);
    expect(Object.isFrozen(c.frozen)).toBe(true);
    expect(c[sym]).toBe('symbol field');
    // The copy is independent: changing it leaves the original as it was.
    c.a.next = null;
    expect(a.next).toBe(b);
  });

  it('copies typed arrays with their buffers: views of one buffer stay views of one buffer, at their offsets', () => {
    const buffer = new ArrayBuffer(64);
    const whole = new Float64Array(buffer);
    const tail = new Int32Array(buffer, 32, 4);
    const bytes = new DataView(buffer, 8, 8);
    whole[0] = 1.5;
    tail[1] = 7;
    const root = { whole, tail, bytes, alone: Uint32Array.of(1, 2, 3) };
    const c = copyState(root, { streams: ORIGINAL });
    expect(c.whole.buffer).not.toBe(buffer);
    expect(c.tail.buffer).toBe(c.whole.buffer);
    expect(c.bytes.buffer).toBe(c.whole.buffer);
    expect(c.tail.byteOffset).toBe(32);
    expect(c.tail).toHaveLength(4);
    expect(c.bytes.byteOffset).toBe(8);
    expect(c.whole[0]).toBe(1.5);
    expect(c.tail[1]).toBe(7);
    expect([...c.alone]).toEqual([1, 2, 3]);
    // A write through one view of the copy shows in its other views, not in the original's.
    c.tail[0] = 42;
    expect(new Int32Array(c.whole.buffer, 32, 1)[0]).toBe(42);
    expect(tail[0]).toBe(0);
    c.bytes.setFloat64(0, 2.5, true);
    expect(c.whole[1]).toBe(2.5);
    expect(whole[1]).toBe(0);
  });
});

describe('copyState: functions', () => {
  it('refuses a closure, naming the path to it from the root', () => {
    const cache = { deadlineOf: (x: number) => x + 1 };
    const root = { layers: { caches: [cache] } };
    expect(() => copyState(root, { streams: ORIGINAL, rootName: 'model' })).toThrow(SnapshotError);
    expect(() => copyState(root, { streams: ORIGINAL, rootName: 'model' })).toThrow(/model\.layers\.caches\[0\]\.deadlineOf: a function that is neither a random stream nor listed as stateless/);
  });

  it('lists every refused function and internal-state object once, by a shortest path', () => {
    const f = () => 0;
    const root = { a: { f }, again: f, m: new Map([['key', () => 1]]), w: new WeakMap(), s: stream(1, 'ok') };
    expect(stateProblems(root, { rootName: 'model' })).toEqual([
      'model.again: a function that is neither a random stream nor listed as stateless (its captured state cannot be copied)',
      'model.w: a WeakMap (its state is in internal slots, which no copy can reach)',
      'model.m.get("key"): a function that is neither a random stream nor listed as stateless (its captured state cannot be copied)',
    ]);
  });

  it('refuses an object whose state is in internal slots, naming its path', () => {
    expect(() => copyState({ parts: [{ seen: new WeakMap() }] }, { streams: ORIGINAL, rootName: 'model' })).toThrow(/model\.parts\[0\]\.seen: a WeakMap/);
  });

  it('shares a function listed as stateless, and accepts the state then', () => {
    const never = (): number => {
      throw new Error('never drawn');
    };
    const root = { u: never, w: { u: never } };
    expect(stateProblems(root, { stateless: [never] })).toEqual([]);
    const c = copyState(root, { streams: ORIGINAL, stateless: [never] });
    expect(c.u).toBe(never);
    expect(c.w.u).toBe(never);
  });
});

describe('streams copied', () => {
  it('continues a stream exactly: the copy draws what the original draws next, and copying draws nothing', () => {
    const u = stream(7, 'arrivals', 2);
    const twin = stream(7, 'arrivals', 2);
    draws(u, 5);
    draws(twin, 5);
    const c = copyStream(u, ORIGINAL) as Uniform;
    const next = draws(c, 100);
    expect(next).toEqual(draws(u, 100));
    expect(next).toEqual(draws(twin, 100));
    expect(streamOrigin(c)).toEqual({ master: 7, names: ['arrivals', 2] });
  });

  it('continues a stream reached through the state, shared where the original is shared', () => {
    const u = stream(3, 'service');
    draws(u, 17);
    const root = { sampler: { u }, u };
    const c = copyState(root, { streams: ORIGINAL });
    expect(c.u).not.toBe(u);
    expect(c.sampler.u).toBe(c.u);
    expect(draws(c.u, 50)).toEqual(draws(u, 50));
  });

  it('makes fresh streams anew from the fresh seed combined with the master, and the same names: deterministic, unlike the original', () => {
    const u = stream(3, 'service', 'b0');
    draws(u, 17);
    const fresh = (seed: number) => copyState({ u }, { streams: { kind: 'fresh', seed } }).u;
    const a = draws(fresh(99), 50);
    expect(a).toEqual(draws(stream(deriveSeed(99, 3), 'service', 'b0'), 50));
    expect(a).toEqual(draws(fresh(99), 50));
    expect(a).not.toEqual(draws(fresh(100), 50));
    expect(a).not.toEqual(draws(copyStream(u, ORIGINAL) as Uniform, 50));
  });
});

describe('per-client generators copied', () => {
  const MODES: SeedingMode[] = [{ kind: 'independent' }, { kind: 'shared' }, { kind: 'time-seeded', resolutionMs: 100 }];

  it('ClientRandom.named draws as the constructor under deriveSeed(master, ...names)', () => {
    for (const mode of MODES) {
      const named = ClientRandom.named(4, mode, 11, 'jitter', 0);
      const bare = new ClientRandom(4, deriveSeed(11, 'jitter', 0), mode);
      for (let client = 0; client < 4; client++) expect(clientDraws(named, client, 5)).toEqual(clientDraws(bare, client, 5));
    }
  });

  it('continues every client exactly with the original streams', () => {
    for (const mode of MODES) {
      const r = ClientRandom.named(3, mode, 5, 'jitter', 1);
      r.start(1, 250);
      r.next(0);
      r.next(1);
      const c = copyState(r, { streams: ORIGINAL });
      for (let client = 0; client < 3; client++) expect(clientDraws(c, client, 20)).toEqual(clientDraws(r, client, 20));
    }
  });

  it('re-seeds clients under a fresh seed: deterministic, new draws, clients that drew alike still alike', () => {
    const r = ClientRandom.named(4, { kind: 'time-seeded', resolutionMs: 100 }, 5, 'jitter', 0);
    // Clients 0 and 1 start in one window, 2 in another; 3 never starts.
    r.start(0, 110);
    r.start(1, 190);
    r.start(2, 250);
    const fresh = (seed: number) => copyState(r, { streams: { kind: 'fresh', seed } });
    const a = fresh(42);
    const b = fresh(42);
    const original = copyState(r, { streams: ORIGINAL });
    for (let client = 0; client < 4; client++) {
      const drawn = clientDraws(a, client, 10);
      expect(drawn).toEqual(clientDraws(b, client, 10));
      expect(drawn).not.toEqual(clientDraws(copyState(original, { streams: ORIGINAL }), client, 10));
      expect(drawn).not.toEqual(clientDraws(fresh(43), client, 10));
    }
    const c = fresh(42);
    expect(clientDraws(c, 0, 10)).toEqual(clientDraws(c, 1, 10));
    expect(clientDraws(fresh(42), 0, 10)).not.toEqual(clientDraws(fresh(42), 2, 10));
    // A client starting after the copy is seeded as the fresh generator seeds it.
    const later = fresh(42);
    later.start(3, 310);
    const seededFresh = ClientRandom.named(4, { kind: 'time-seeded', resolutionMs: 100 }, deriveSeed(42, 5), 'jitter', 0);
    seededFresh.start(3, 310);
    expect(clientDraws(later, 3, 10)).toEqual(clientDraws(seededFresh, 3, 10));
  });

  it('keeps the seeding mode under a fresh seed: shared clients still draw alike, independent ones apart', () => {
    const shared = ClientRandom.named(3, { kind: 'shared' }, 5, 'jitter', 0);
    shared.next(2);
    const s = copyState(shared, { streams: { kind: 'fresh', seed: 8 } });
    const first = clientDraws(s, 0, 10);
    expect(clientDraws(s, 1, 10)).toEqual(first);
    // Client 2 drew once more before the copy: it runs one draw ahead on the same sequence.
    expect(clientDraws(s, 2, 9)).toEqual(first.slice(1));
    expect(first).not.toEqual(clientDraws(copyState(shared, { streams: ORIGINAL }), 0, 10));
    const independent = copyState(ClientRandom.named(3, { kind: 'independent' }, 5, 'jitter', 0), { streams: { kind: 'fresh', seed: 8 } });
    expect(clientDraws(independent, 0, 10)).not.toEqual(clientDraws(independent, 1, 10));
  });

  it('refuses fresh streams for a generator built from a bare seed, naming its path', () => {
    const root = { layers: { jitter: [new ClientRandom(2, 9, { kind: 'independent' })] } };
    expect(() => copyState(root, { streams: { kind: 'fresh', seed: 1 }, rootName: 'model' })).toThrow(/model\.layers\.jitter\[0\]: a ClientRandom built from a bare seed cannot take fresh streams/);
    expect(copyState(root, { streams: ORIGINAL }).layers.jitter[0]?.next(1)).toBe(root.layers.jitter[0]?.next(1));
  });
});

/** Kinds of the toy model's events. */
const ARRIVAL = 0;
const DONE = 1;
const BACKOFF = 2;

/**
 * A toy run with its state in fields, as a model keeps it: clients arrive at one server with a
 * bounded queue; a rejected client waits a jittered backoff (its own stream) and comes again.
 */
class ToyRun {
  readonly sim = new Simulator(0, 16);
  readonly arrivals: Uniform;
  readonly service: Uniform;
  readonly jitter: ClientRandom;
  readonly queue: number[] = [];
  busy = -1;
  nextClient = 0;
  readonly log: Array<[number, string]> = [];

  constructor(seed: number) {
    this.arrivals = stream(seed, 'arrivals');
    this.service = stream(seed, 'service');
    this.jitter = ClientRandom.named(1000, { kind: 'independent' }, seed, 'jitter');
    this.sim.at(0, ARRIVAL, -1, 0);
  }

  handle(kind: number, a: number, _b: number, t: number): void {
    if (kind === ARRIVAL || kind === BACKOFF) {
      let client = a;
      if (kind === ARRIVAL) {
        client = this.nextClient++;
        if (this.nextClient < 1000) this.sim.after(-Math.log(1 - this.arrivals()) * 10, ARRIVAL, -1, 0);
      }
      this.log.push([t, `arrive ${client}`]);
      if (this.busy < 0) this.serve(client, t);
      else if (this.queue.length < 3) this.queue.push(client);
      else {
        this.log.push([t, `reject ${client}`]);
        this.sim.after(this.jitter.next(client) * 50, BACKOFF, client, 0);
      }
      return;
    }
    this.log.push([t, `done ${a}`]);
    this.busy = -1;
    const waiting = this.queue.shift();
    if (waiting !== undefined) this.serve(waiting, t);
  }

  private serve(client: number, t: number): void {
    this.busy = client;
    this.log.push([t, `serve ${client}`]);
    this.sim.after(-Math.log(1 - this.service()) * 8, DONE, client, 0);
  }

  runTo(horizonMs: number): void {
    this.sim.run(this, { horizonMs, maxEvents: 1e9 });
  }
}

describe('an engine run continued from a copy', () => {
  const T = 2000;
  const END = 15_000;

  it('with the original streams gives exactly the uninterrupted run, however many times', () => {
    const whole = new ToyRun(1);
    whole.runTo(END);
    expect(whole.log.filter(([, e]) => e.startsWith('reject')).length).toBeGreaterThan(10);
    const run = new ToyRun(1);
    run.runTo(T);
    const snapshot = copyState(run, { streams: ORIGINAL, rootName: 'run' });
    for (let i = 0; i < 2; i++) {
      const c = copyState(snapshot, { streams: ORIGINAL });
      c.runTo(END);
      expect(c.log).toEqual(whole.log);
    }
    run.runTo(END);
    expect(run.log).toEqual(whole.log);
  });

  it('with fresh streams gives another run from the same state, the same one for the same seed', () => {
    const run = new ToyRun(1);
    run.runTo(T);
    const before = run.log.length;
    const snapshot = copyState(run, { streams: ORIGINAL });
    const branch = (seed: number) => {
      const c = copyState(snapshot, { streams: { kind: 'fresh', seed } });
      c.runTo(END);
      return c.log;
    };
    const a = branch(5);
    run.runTo(END);
    expect(a.slice(0, before)).toEqual(run.log.slice(0, before));
    expect(a).not.toEqual(run.log);
    expect(branch(5)).toEqual(a);
    expect(branch(6)).not.toEqual(a);
  });
});

describe('fresh streams of a model whose streams are named under derived masters', () => {
  it('keeps apart, under one fresh seed, streams that differ only by their masters (a seed per service)', () => {
    const a = stream(deriveSeed(7, 'service', 'a'), 'service');
    const b = stream(deriveSeed(7, 'service', 'b'), 'service');
    const copy = copyState({ a, b }, { streams: { kind: 'fresh', seed: 11 } });
    expect(draws(copy.a, 20)).not.toEqual(draws(copy.b, 20));
    const ra = ClientRandom.named(3, { kind: 'shared' }, deriveSeed(7, 'call', 0), 'jitter', 0);
    const rb = ClientRandom.named(3, { kind: 'shared' }, deriveSeed(7, 'call', 1), 'jitter', 0);
    const c = copyState({ ra, rb }, { streams: { kind: 'fresh', seed: 11 } });
    expect(clientDraws(c.ra, 0, 10)).not.toEqual(clientDraws(c.rb, 0, 10));
  });

  it('re-derives a NamedSeed as its streams are: the same for the same fresh seed, another for another, shared where shared', () => {
    const seed = new NamedSeed(deriveSeed(7, 'service', 'a'), 'entries');
    expect(seed.value).toBe(deriveSeed(deriveSeed(7, 'service', 'a'), 'entries'));
    const root = { seed, also: seed, other: new NamedSeed(deriveSeed(7, 'service', 'b'), 'entries') };
    const fresh = (s: number) => copyState(root, { streams: { kind: 'fresh', seed: s } });
    const one = fresh(11);
    expect(one.also).toBe(one.seed);
    expect(one.seed.value).toBe(deriveSeed(deriveSeed(11, deriveSeed(7, 'service', 'a')), 'entries'));
    expect(one.seed.value).toBe(fresh(11).seed.value);
    expect(one.seed.value).not.toBe(fresh(12).seed.value);
    expect(one.seed.value).not.toBe(one.other.value);
    expect(copyState(root, { streams: ORIGINAL }).seed.value).toBe(seed.value);
    expect(seed.value).toBe(deriveSeed(deriveSeed(7, 'service', 'a'), 'entries'));
  });

  it('copies a client stream with its generator and cursor: original continues, fresh re-seeds, the cursor stays shared', () => {
    const random = ClientRandom.named(4, { kind: 'independent' }, 5, 'network');
    const cursor = { client: 2 };
    const u = clientStream(random, cursor);
    draws(u, 3);
    const root = { u, cursor, sampler: { u } };
    expect(stateProblems(root, { streams: { kind: 'fresh', seed: 1 } })).toEqual([]);
    const copy = copyState(root, { streams: ORIGINAL });
    expect(copy.u).not.toBe(u);
    expect(copy.sampler.u).toBe(copy.u);
    copy.cursor.client = 1;
    cursor.client = 1;
    expect(draws(copy.u, 10)).toEqual(draws(u, 10));
    const fresh = copyState(root, { streams: { kind: 'fresh', seed: 9 } });
    expect(draws(fresh.u, 10)).not.toEqual(draws(copyState(root, { streams: ORIGINAL }).u, 10));
    expect(draws(copyState(root, { streams: { kind: 'fresh', seed: 9 } }).u, 10)).toEqual(draws(copyState(root, { streams: { kind: 'fresh', seed: 9 } }).u, 10));
  });

  it('names a bare-seeded generator behind a client stream when fresh streams are asked for', () => {
    const root = { hop: { u: clientStream(new ClientRandom(2, 9, { kind: 'independent' }), { client: 0 }) } };
    expect(stateProblems(root, { streams: { kind: 'fresh', seed: 1 }, rootName: 'model' })).toEqual([
      'model.hop.u (its generator): a ClientRandom built from a bare seed cannot take fresh streams (build it with ClientRandom.named)',
    ]);
  });

  it('shares a function marked stateless without being told', () => {
    const never = stateless(() => 0);
    const root = { never };
    expect(stateProblems(root)).toEqual([]);
    expect(copyState(root, { streams: ORIGINAL }).never).toBe(never);
  });
});

describe('copyState into a state of the same shape', () => {
  class Cell {
    n = 0;
    next: Cell | null = null;
    readonly seen = new Map<string, Cell>();
    readonly cells: Cell[] = [];
  }

  it("reuses the objects at the same places (same prototype, same keys in order), overwriting their fields: the copy is the same as without", () => {
    const a = new Cell();
    a.n = 5;
    const b = new Cell();
    b.n = 7;
    a.next = b;
    b.next = a;
    a.seen.set('b', b);
    a.cells.push(b, a);
    const into = new Cell();
    into.next = new Cell();
    into.seen.set('b', new Cell());
    const intoNext = into.next;
    const copy = copyState(a, { streams: ORIGINAL, into });
    expect(copy).toBe(into);
    expect(copy.next).toBe(intoNext);
    expect(copy.n).toBe(5);
    expect(copy.next?.n).toBe(7);
    expect(copy.next?.next).toBe(copy);
    expect(copy.seen.get('b')).toBe(copy.next);
    expect(copy.cells).toEqual([copy.next, copy]);
    expect(copy).toEqual(copyState(a, { streams: ORIGINAL }));
    expect(a.n).toBe(5);
  });

  it('makes its own object where the counterpart differs (another prototype, other keys, taken already, frozen)', () => {
    const src = { x: new Cell(), y: { p: 1, q: 2 }, z: { p: 1 }, w: { p: 3 } };
    const taken = { p: 9 };
    const into = { x: { n: 0 }, y: { q: 2, p: 1 }, z: taken, w: taken };
    const copy = copyState(src, { streams: ORIGINAL, into });
    expect(copy).toBe(into);
    expect(copy.x).toBeInstanceOf(Cell);
    expect(copy.y).toEqual({ p: 1, q: 2 });
    expect(Object.keys(copy.y)).toEqual(['p', 'q']);
    expect(copy.z).toBe(taken);
    expect(copy.w).not.toBe(taken);
    expect([copy.z.p, copy.w.p]).toEqual([1, 3]);
    const frozen = Object.freeze({ p: 0 });
    expect(copyState({ f: { p: 4 } }, { streams: ORIGINAL, into: { f: frozen } }).f).toEqual({ p: 4 });
    expect(frozen.p).toBe(0);
  });
});
