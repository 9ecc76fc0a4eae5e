import seedrandom from 'seedrandom';

/** A source of uniform draws in [0, 1). Every random quantity in a simulation is drawn from one. */
export type Uniform = () => number;

/**
 * How the per-client random streams of a {@link ClientRandom} are seeded, after the ways real
 * clients seed their jitter:
 * - `independent`: each client has its own stream;
 * - `shared`: every client is seeded alike, so all jitter sequences are identical;
 * - `time-seeded`: a client is seeded from `floor(startMs / resolutionMs)` when it starts, so
 *   clients that start within the same window draw identical sequences (as processes seeding
 *   from the wall clock do).
 */
export type SeedingMode =
  | { kind: 'independent' }
  | { kind: 'shared' }
  | { kind: 'time-seeded'; resolutionMs: number };

const FNV_OFFSET_BASIS = 0x811c9dc5;
const FNV_PRIME = 0x01000193;
const TAG_STRING = 0x01;
const TAG_NUMBER = 0x02;

/**
 * The 32-bit finalizer (fmix32) of Austin Appleby's MurmurHash3 (public domain): a bijection of
 * 32-bit integers in which every input bit affects every output bit.
 */
function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** One FNV-1a step (Fowler, Noll, Vo) over the low byte of `byte`. */
function fnvByte(h: number, byte: number): number {
  return Math.imul(h ^ (byte & 0xff), FNV_PRIME);
}

/** Feed a 32-bit unsigned integer, little-endian. */
function fnvUint32(h: number, v: number): number {
  h = fnvByte(h, v);
  h = fnvByte(h, v >>> 8);
  h = fnvByte(h, v >>> 16);
  return fnvByte(h, v >>> 24);
}

/** Feed one path component: a type tag, the length, then the UTF-16 code units, little-endian. */
function fnvComponent(h: number, tag: number, text: string): number {
  h = fnvByte(h, tag);
  h = fnvUint32(h, text.length);
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    h = fnvByte(h, c);
    h = fnvByte(h, c >>> 8);
  }
  return h;
}

function canonical(part: string | number, what: string): [number, string] {
  if (typeof part === 'string') return [TAG_STRING, part];
  if (typeof part === 'number') {
    if (!Number.isFinite(part)) throw new RangeError(`${what} must be a finite number (got ${part})`);
    // String() is the shortest round-trip decimal form, identical on every platform; -0 prints as 0.
    return [TAG_NUMBER, String(part)];
  }
  throw new TypeError(`${what} must be a string or a number (got ${typeof part})`);
}

/**
 * A 32-bit unsigned seed for the stream named by `names` under the master seed `master`.
 *
 * The master seed and each name are encoded canonically (a type tag, the length, the UTF-16 code
 * units; numbers in their shortest round-trip decimal form) and hashed with 32-bit FNV-1a
 * (Fowler-Noll-Vo), whose result is finished by MurmurHash3's fmix32 avalanche (Austin Appleby).
 * The encoding is unambiguous: `('a', 'b')`, `('ab')` and `('a b')` are different paths, and so
 * are the number `1` and the string `'1'`. The result depends only on the arguments: it is the
 * same on every run and every platform. Throws a RangeError for a non-finite number.
 */
export function deriveSeed(master: number | string, ...names: Array<string | number>): number {
  let h = FNV_OFFSET_BASIS;
  const [mtag, mtext] = canonical(master, 'master seed');
  h = fnvComponent(h, mtag, mtext);
  h = fnvUint32(h, names.length);
  for (let i = 0; i < names.length; i++) {
    const [tag, text] = canonical(names[i] as string | number, `name ${i}`);
    h = fnvComponent(h, tag, text);
  }
  return fmix32(h);
}

/** The master seed and names a random stream was made under ({@link stream}, {@link ClientRandom.named}). */
export interface StreamOrigin {
  readonly master: number | string;
  readonly names: ReadonlyArray<string | number>;
}

/**
 * How the random streams of a copy of a run's state go on (src/engine/copyState.ts):
 * - `original`: each stream continues from where it stood, drawing what the run would have drawn;
 * - `fresh`: each stream is made anew from `seed`, with the same names, under the master
 *   {@link freshOrigin} gives (`deriveSeed(seed, master)`): a named stream is
 *   `stream(deriveSeed(seed, master), ...names)`, a {@link ClientRandom} is re-seeded as
 *   {@link ClientRandom.named} describes, a {@link NamedSeed} is derived anew likewise. The same
 *   seed gives the same streams.
 */
export type StreamRule = { kind: 'original' } | { kind: 'fresh'; seed: number };

/**
 * The origin a stream of origin `o` takes under fresh streams of seed `seed` (`StreamRule`
 * `fresh`): the same names, under the master `deriveSeed(seed, o.master)`. The fresh seed is
 * combined with the master rather than put in its place, because a model's streams are often
 * named under masters that are themselves derived (a seed per service, per call, per workload):
 * streams that differ only by their masters stay apart (each service its own service times),
 * and a copy of a copy keeps an origin of the same size.
 */
export function freshOrigin(o: StreamOrigin, seed: number): StreamOrigin {
  return { master: deriveSeed(seed, o.master), names: o.names };
}

/** The state of one Alea generator (seedrandom's `{ state: true }`): enough to continue it exactly. */
type AleaState = seedrandom.State.Alea;

/** What a copy needs of a stream made by {@link stream}: its origin and a reader of its state. */
interface StreamRecord {
  readonly origin: StreamOrigin;
  readonly state: () => AleaState;
}

/**
 * The streams made by {@link stream}, by the function drawn from. The draw itself is seedrandom's
 * own function, unchanged: keeping the record beside it rather than on it costs a draw nothing.
 */
const streamRecords = new WeakMap<Uniform, StreamRecord>();

function aleaStream(seedText: string, state: AleaState | true, origin: StreamOrigin): Uniform {
  // seedrandom 3 is CommonJS: under ESM only the default import carries `alea`.
  const prng = seedrandom.alea(seedText, { state });
  streamRecords.set(prng, { origin, state: prng.state });
  return prng;
}

/**
 * A named random stream: Baagøe's Alea generator (seedrandom's `alea`, fast and with a period
 * near 2^116) seeded with {@link deriveSeed}`(master, ...names)`. Streams with different names
 * are unrelated; the same master and names always give the same sequence. Each draw has 32
 * bits of resolution. The stream remembers its origin and can be copied ({@link copyStream}).
 */
export function stream(master: number | string, ...names: Array<string | number>): Uniform {
  return aleaStream(String(deriveSeed(master, ...names)), true, { master, names });
}

/** The origin of `u` when {@link stream} made it (a copy of one included), else null. */
export function streamOrigin(u: Uniform): StreamOrigin | null {
  const record = streamRecords.get(u);
  return record === undefined ? null : { master: record.origin.master, names: [...record.origin.names] };
}

/**
 * A copy of the stream `u` made by {@link stream} (null for any other function), as `rule` says:
 * `original` continues from `u`'s state, drawing exactly what `u` would draw next (and leaves `u`
 * as it is); `fresh` is `stream(rule.seed, ...names)` under `u`'s names. The copy can be copied in
 * turn.
 */
export function copyStream(u: Uniform, rule: StreamRule): Uniform | null {
  const record = streamRecords.get(u);
  if (record === undefined) return null;
  if (rule.kind === 'fresh') {
    const o = freshOrigin(record.origin, rule.seed);
    return stream(o.master, ...o.names);
  }
  return aleaStream('', record.state(), record.origin);
}

/** What {@link clientStream} draws from: a client's generator among many, the client named by `cursor`. */
interface ClientStreamParts {
  readonly random: ClientRandom;
  readonly cursor: { client: number };
}

/** The streams made by {@link clientStream}, by the function drawn from, with what they draw from. */
const clientStreams = new WeakMap<Uniform, ClientStreamParts>();

/**
 * A {@link Uniform} that draws from `random`'s generator of client `cursor.client` (set the cursor
 * before a draw): a sampler built once draws each client's values from the client's own stream.
 * Its state is `random`'s and `cursor`'s, which a copy of a run's state copies; the function
 * remembers them ({@link clientStreamParts}), so the copy draws from the copies.
 */
export function clientStream(random: ClientRandom, cursor: { client: number }): Uniform {
  const u: Uniform = () => random.next(cursor.client);
  clientStreams.set(u, { random, cursor });
  return u;
}

/** The generator and cursor `u` draws from when {@link clientStream} made it, else null. */
export function clientStreamParts(u: Uniform): ClientStreamParts | null {
  return clientStreams.get(u) ?? null;
}

/** Functions marked by {@link stateless}. */
const statelessFunctions = new WeakSet<AnyFunctionOf>();
/** A function of any parameters. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- every function, whatever its parameters
type AnyFunctionOf = (...args: any[]) => unknown;

/**
 * `fn`, marked as holding no state at all (a module-level function that reads only its arguments
 * and constants, such as a stream that must never be drawn from): a copy of a run's state
 * (src/engine/copyState.ts) shares it instead of refusing it.
 */
export function stateless<F extends AnyFunctionOf>(fn: F): F {
  statelessFunctions.add(fn);
  return fn;
}

/** Whether {@link stateless} marked `fn`. */
export function isStateless(fn: AnyFunctionOf): boolean {
  return statelessFunctions.has(fn);
}


/**
 * The method by which an object of a run's state re-seeds its own random state when a copy of it
 * takes fresh streams (`StreamRule` `fresh`): src/engine/copyState.ts calls `object[RESEED](seed)`
 * on the copy of every object whose class has it, once the whole copy is made. It throws (with
 * the reason) when the object cannot be re-seeded.
 */
export const RESEED: unique symbol = Symbol('reseed');

/**
 * A seed kept as a number for draws made later from it (the base of a counter-based
 * {@link keyedUniform}: an operation's cache key, its entry among several targets), which
 * remembers its origin as a named stream does: `value` is `deriveSeed(master, ...names)`, and a
 * copy of a run's state under fresh streams derives it anew from the fresh origin
 * ({@link freshOrigin}), so that what is drawn from it follows the branch, as streams do.
 */
export class NamedSeed {
  /** The seed: `deriveSeed(origin.master, ...origin.names)`. */
  value: number;
  /** Where {@link value} comes from. */
  origin: StreamOrigin;

  constructor(master: number | string, ...names: Array<string | number>) {
    this.origin = { master, names };
    this.value = deriveSeed(master, ...names);
  }

  /** Derives the seed anew under fresh streams of seed `seed`; for a copy of a run's state (src/engine/copyState.ts). */
  [RESEED](seed: number): void {
    this.origin = freshOrigin(this.origin, seed);
    this.value = deriveSeed(this.origin.master, ...this.origin.names);
  }
}

/** Weyl increment of mulberry32. */
const MULBERRY_GAMMA = 0x6d2b79f5;
/** 2^-32. */
const INV_2_32 = 1 / 4294967296;
/** Mixed with a re-seeded {@link ClientRandom}'s base into the offset its clients' states move by. */
const FRESH_OFFSET_KEY = 0x5bd1e995;
/** Multiplier (2^32 / golden ratio, odd) that spreads consecutive keys before mixing. */
const GOLDEN_GAMMA = 0x9e3779b9;

/**
 * A 32-bit state for key (`lo`, `hi`) under `base`. For a fixed base and `hi`, distinct `lo`
 * give distinct states (both steps are bijections of 32-bit integers).
 */
function keyState(base: number, lo: number, hi: number): number {
  const h = fmix32((base ^ Math.imul(lo, GOLDEN_GAMMA)) >>> 0);
  return fmix32((h ^ Math.imul(hi, 0x85ebca6b)) >>> 0);
}

/**
 * Per-client random streams for up to millions of clients, without one JS object per client:
 * each client's generator is one 32-bit word in a Uint32Array, advanced by mulberry32 (Tommy
 * Ettinger's mulberry32, public domain, https://gist.github.com/tommyettinger/46a874533244883189143505d203312c).
 * The seeding follows a {@link SeedingMode}: `independent` seeds client i with hash(seed, i);
 * `shared` seeds every client with hash(seed) = {@link deriveSeed}(seed); `time-seeded` seeds a
 * client when it starts ({@link ClientRandom.start}), with hash(seed, floor(startMs /
 * resolutionMs)). hash(seed, k) mixes k into deriveSeed(seed) with MurmurHash3's fmix32; for
 * distinct k below 2^32 the states are distinct. `next` allocates nothing.
 *
 * mulberry32 is a single cycle of 2^32 states: two clients whose starting points lie within n
 * steps of each other on it share a shifted run of up to n draws. With N independent clients
 * drawing n values each, about N^2 * n / 2^32 pairs do (a few thousand out of 5e11 pairs for a
 * million clients drawing 100 values); it is harmless for jitter but not for designs that need
 * every client to be strictly distinct from every other.
 */
export class ClientRandom {
  /** Number of clients (ids 0 .. clients - 1). */
  readonly clients: number;
  /** How the clients are seeded. */
  readonly mode: SeedingMode;
  /** The master seed and names of {@link ClientRandom.named}; null: built from a bare seed, which fresh streams cannot replace. */
  readonly origin: StreamOrigin | null = null;
  private readonly state: Uint32Array;
  /** hash(seed): the base every client state derives from (replaced when re-seeded for fresh streams). */
  private base: number;
  /** 0 independent, 1 shared, 2 time-seeded. */
  private readonly modeCode: number;
  private readonly resolutionMs: number;

  /**
   * `clients` streams under `seed` (any finite number; pass e.g. {@link deriveSeed}(master,
   * 'clients')). In `time-seeded` mode a client draws as if it had started at time 0 until
   * {@link ClientRandom.start} is called for it.
   */
  constructor(clients: number, seed: number, mode: SeedingMode) {
    if (!Number.isInteger(clients) || clients < 0 || clients > 0xffffffff) {
      throw new RangeError(`clients must be an integer in [0, 2^32) (got ${clients})`);
    }
    if (!Number.isFinite(seed)) throw new RangeError(`seed must be a finite number (got ${seed})`);
    let modeCode: number;
    let resolutionMs = 1;
    switch (mode.kind) {
      case 'independent':
        modeCode = 0;
        break;
      case 'shared':
        modeCode = 1;
        break;
      case 'time-seeded':
        modeCode = 2;
        resolutionMs = mode.resolutionMs;
        if (!(Number.isFinite(resolutionMs) && resolutionMs > 0)) {
          throw new RangeError(`resolutionMs must be > 0 and finite (got ${resolutionMs})`);
        }
        break;
      default:
        throw new RangeError(
          `mode.kind must be one of independent, shared, time-seeded (got ${JSON.stringify((mode as { kind: unknown }).kind)})`,
        );
    }
    this.clients = clients;
    this.mode = mode;
    this.modeCode = modeCode;
    this.resolutionMs = resolutionMs;
    this.base = deriveSeed(seed);
    this.state = new Uint32Array(clients);
    this.seedAll();
  }

  /**
   * `clients` streams under `deriveSeed(master, ...names)`, as the constructor makes them, that
   * remember their origin, so that a copy of a run's state can re-seed them under a fresh master
   * seed (`StreamRule` `fresh`). Re-seeded under `seed`, the origin becomes {@link freshOrigin}'s
   * and the base hash(deriveSeed(deriveSeed(seed, master), ...names)) (what `named(clients, mode,
   * deriveSeed(seed, master), ...names)` has), so every later seeding ({@link
   * start}, {@link reset}) is the fresh generator's; and every client's state moves by one offset
   * along mulberry32's cycle, derived from the new base: clients whose draws coincided (the
   * `shared` mode, clients of one `time-seeded` window) still coincide, shifted runs stay shifted,
   * and the draws themselves are new.
   */
  static named(clients: number, mode: SeedingMode, master: number | string, ...names: Array<string | number>): ClientRandom {
    const r = new ClientRandom(clients, deriveSeed(master, ...names), mode);
    (r as { origin: StreamOrigin | null }).origin = { master, names };
    return r;
  }

  /** Re-seeds the streams under fresh streams of seed `seed`, as {@link ClientRandom.named} says; for a copy of a run's state (src/engine/copyState.ts). */
  [RESEED](seed: number): void {
    if (this.origin === null) {
      throw new Error('a ClientRandom built from a bare seed cannot take fresh streams: build it with ClientRandom.named(clients, mode, master, ...names)');
    }
    const origin = freshOrigin(this.origin, seed);
    (this as { origin: StreamOrigin | null }).origin = origin;
    this.base = deriveSeed(deriveSeed(origin.master, ...origin.names));
    // Odd, hence never 0: the fresh draws never continue the original ones.
    const offset = (fmix32((this.base ^ FRESH_OFFSET_KEY) >>> 0) | 1) >>> 0;
    const state = this.state;
    for (let i = 0; i < state.length; i++) state[i] = ((state[i] as number) + offset) >>> 0;
  }

  private seedAll(): void {
    const state = this.state;
    const n = state.length;
    if (this.modeCode === 0) {
      const base = this.base;
      for (let i = 0; i < n; i++) state[i] = keyState(base, i, 0);
    } else {
      state.fill(this.initialState(0));
    }
  }

  /** The state client `client` gets at construction or {@link reset}. */
  private initialState(client: number): number {
    switch (this.modeCode) {
      case 0:
        return keyState(this.base, client, 0);
      case 1:
        return this.base;
      default:
        return this.windowState(0);
    }
  }

  private windowState(window: number): number {
    // Windows before 0 (warm-up) and beyond 2^32 stay distinct: low and high words are both mixed in.
    const lo = window >>> 0;
    const hi = Math.floor(window / 4294967296) | 0;
    return keyState(this.base, lo, hi);
  }

  private check(client: number): void {
    if (!(client >= 0 && client < this.clients && Number.isInteger(client))) badClient(client, this.clients);
  }

  /**
   * The client starts at simulated time `startMs`. In `time-seeded` mode its stream is reseeded
   * with hash(seed, floor(startMs / resolutionMs)); in the other modes nothing happens.
   */
  start(client: number, startMs: number): void {
    if (this.modeCode !== 2) return;
    this.check(client);
    if (!Number.isFinite(startMs)) throw new RangeError(`startMs must be finite (got ${startMs})`);
    this.state[client] = this.windowState(Math.floor(startMs / this.resolutionMs));
  }

  /**
   * Reseed `client` as at construction, so it replays its sequence from the first draw (in
   * `time-seeded` mode: as before any {@link ClientRandom.start}; call `start` again instead).
   */
  reset(client: number): void {
    this.check(client);
    this.state[client] = this.initialState(client);
  }

  /** The next uniform draw in [0, 1) of `client`'s stream (32 bits of resolution). */
  next(client: number): number {
    const state = this.state;
    if (!(client >>> 0 === client && client < state.length)) this.check(client);
    // mulberry32
    const a = ((state[client] as number) + MULBERRY_GAMMA) | 0;
    state[client] = a;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t = (t + Math.imul(t ^ (t >>> 7), t | 61)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) * INV_2_32;
  }
}

/** Thrown out of line: a `throw` with a template string inside a hot method slows down its callers. */
function badClient(client: number, clients: number): never {
  throw new RangeError(`client must be an integer in [0, ${clients}) (got ${client})`);
}

/**
 * A uniform draw in [0, 1) that depends only on `base` and the integer `key` (0 <= key < 2^53): a
 * counter-based stream, one draw per key, for quantities drawn once per item (an operation's cache
 * key) that must not depend on the order in which events run. Distinct keys give distinct 32-bit
 * states (see keyState); 32 bits of resolution.
 */
export function keyedUniform(base: number, key: number): number {
  return keyState(base >>> 0, key >>> 0, Math.floor(key / 4294967296) >>> 0) * INV_2_32;
}
