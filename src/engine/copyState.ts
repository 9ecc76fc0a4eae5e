import { ClientRandom, clientStream, clientStreamParts, copyStream, isStateless, RESEED, streamOrigin, type StreamRule, type Uniform } from './random.js';

/** Any function (a random stream, a stateless function, or a closure to refuse). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- every function, whatever its parameters
export type AnyFunction = (...args: any[]) => unknown;

/**
 * The rule a run's state follows so that it can be copied at a simulated time and continued any
 * number of times ({@link copyState}): it lives in plain fields (numbers, strings, typed arrays,
 * arrays, Map, Set, plain objects and instances of classes), and no closure holds any of it, for
 * a closure's captured variables cannot be reached, hence not copied. Random streams are the
 * functions made by `stream` and `clientStream` (random.ts), copied by their state; per-client
 * generators come from `ClientRandom.named`, and a seed kept as a number for later draws is a
 * `NamedSeed`, so that fresh streams re-derive them; a function with no state at all (a
 * module-level function that reads nothing but its arguments and constants) is marked by
 * `stateless` (random.ts) or listed as {@link CopyOptions.stateless}. ECMAScript private fields
 * (`#name`) cannot be reached either: TypeScript's `private` is a plain field.
 */
export interface CopyOptions {
  /** How the copy's random streams go on: where they stood, or made anew from a fresh seed. */
  streams: StreamRule;
  /**
   * Functions with no state of their own, which the copy refers to as the original does (e.g. a
   * module-level stream that must never be drawn from). Any other function that is not a random
   * stream is refused.
   */
  stateless?: Iterable<AnyFunction>;
  /** The name of the root in the paths of messages (default {@link DEFAULT_ROOT_NAME}). */
  rootName?: string;
  /**
   * A state of the same shape to copy into (e.g. a model just built by its constructor with the
   * same scenario), whose objects are reused: an object of the original whose counterpart in
   * `into` (the object at the same place: the same field, element or Map key) has the same
   * prototype and the same own keys in the same order takes that object, its fields overwritten,
   * instead of an object made by `Object.create`. The copy then has the objects' hidden classes
   * of a run built by the constructors, on which the code already optimised for such runs stays
   * fast (docs/performance.md, "Copies of a run's state"). `into` is overwritten; the copy is the
   * same with it or without.
   */
  into?: unknown;
}

/** The root's name in the paths of {@link SnapshotError} and {@link stateProblems}. */
export const DEFAULT_ROOT_NAME = 'state';

/** At most this many problems are spelled out in a {@link SnapshotError}'s message (all are in `problems`). */
export const MAX_PROBLEMS_IN_MESSAGE = 10;

/** A run's state that cannot be copied: every problem, each `path: why`. */
export class SnapshotError extends Error {
  constructor(readonly problems: readonly string[]) {
    const shown = problems.slice(0, MAX_PROBLEMS_IN_MESSAGE);
    const more = problems.length > shown.length ? ` (and ${problems.length - shown.length} more)` : '';
    super(`the state cannot be copied (a run's state lives in plain fields; no closure holds state): ${shown.join('; ')}${more}`);
    this.name = 'SnapshotError';
  }
}

/** Why a closure is refused, in every problem that names one. */
const CLOSURE_PROBLEM = 'a function that is neither a random stream nor listed as stateless (its captured state cannot be copied)';

/**
 * Objects whose state sits in internal slots no copy can reach, by their `Object.prototype.toString`
 * tag (a run's clock is its simulator's, so a Date has no place in its state either).
 */
const UNCOPYABLE_TAGS: ReadonlySet<string> = new Set([
  '[object Date]',
  '[object RegExp]',
  '[object WeakMap]',
  '[object WeakSet]',
  '[object WeakRef]',
  '[object FinalizationRegistry]',
  '[object Promise]',
  '[object Generator]',
  '[object AsyncGenerator]',
  '[object Map Iterator]',
  '[object Set Iterator]',
  '[object Array Iterator]',
  '[object String Iterator]',
  '[object RegExp String Iterator]',
]);

const objectToString = Object.prototype.toString;
const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** `.key`, `["key"]` or `[Symbol(key)]`: one step of a path. */
function step(key: string | symbol): string {
  if (typeof key === 'symbol') return `[${key.toString()}]`;
  return IDENTIFIER.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`;
}

/** A Map's key as it reads in a path: a string quoted, a number or other primitive as it prints, an object by its own path. */
function keyText(k: unknown, objectPath: string): string {
  if (typeof k === 'string') return JSON.stringify(k);
  return (typeof k === 'object' && k !== null) || typeof k === 'function' ? objectPath : String(k);
}

/** Why `v` (an object, not a function) cannot be copied, or null. */
function uncopyable(v: object): string | null {
  const proto = Object.getPrototypeOf(v);
  if (proto === Object.prototype || proto === null || Array.isArray(v) || ArrayBuffer.isView(v)) return null;
  const tag = objectToString.call(v);
  return UNCOPYABLE_TAGS.has(tag) ? `a ${tag.slice(8, -1)} (its state is in internal slots, which no copy can reach)` : null;
}

/** The own keys of a plain object or a class instance, strings then symbols, in definition order. */
function ownKeys(v: object): Array<string | symbol> {
  return Reflect.ownKeys(v);
}

/** Whether a function of a run's state is copied (a random stream, a client stream) or shared (listed or marked as stateless). */
function acceptedFunction(fn: AnyFunction, stateless: ReadonlySet<AnyFunction>): boolean {
  return stateless.has(fn) || isStateless(fn) || streamOrigin(fn as Uniform) !== null || clientStreamParts(fn as Uniform) !== null;
}

/**
 * Every reason `root` cannot be copied by {@link copyState}, each `path: why` with the shortest
 * path from the root (`state.layers.caches[0].deadlineOf`): functions that are neither random
 * streams nor listed as stateless, objects whose state is in internal slots (WeakMap, Promise, Date, an iterator...),
 * and, for fresh streams, per-client generators built from a bare seed. Each function or object is
 * named once. Empty: the state can be copied.
 */
export function stateProblems(root: unknown, options: Partial<CopyOptions> = {}): string[] {
  const stateless = new Set(options.stateless ?? []);
  const fresh = options.streams?.kind === 'fresh';
  const problems: string[] = [];
  const seen = new Set<unknown>();
  // Breadth first, so the path to each value is a shortest one.
  let level: Array<[unknown, string]> = [[root, options.rootName ?? DEFAULT_ROOT_NAME]];
  while (level.length > 0) {
    const next: Array<[unknown, string]> = [];
    const visit = (v: unknown, path: string) => {
      if ((typeof v === 'object' && v !== null) || typeof v === 'function') next.push([v, path]);
    };
    for (const [v, path] of level) {
      if (seen.has(v)) continue;
      seen.add(v);
      if (typeof v === 'function') {
        if (!acceptedFunction(v as AnyFunction, stateless)) problems.push(`${path}: ${CLOSURE_PROBLEM}`);
        const parts = clientStreamParts(v as Uniform);
        if (parts !== null) {
          visit(parts.random, `${path} (its generator)`);
          visit(parts.cursor, `${path} (its cursor)`);
        }
        continue;
      }
      const o = v as object;
      const why = uncopyable(o);
      if (why !== null) {
        problems.push(`${path}: ${why}`);
        continue;
      }
      if (fresh && o instanceof ClientRandom && o.origin === null) {
        problems.push(`${path}: a ClientRandom built from a bare seed cannot take fresh streams (build it with ClientRandom.named)`);
      }
      if (ArrayBuffer.isView(o) || o instanceof ArrayBuffer || (typeof SharedArrayBuffer !== 'undefined' && o instanceof SharedArrayBuffer)) continue;
      if (o instanceof Map) {
        let i = 0;
        for (const [k, x] of o) {
          visit(k, `${path}.keys()[${i}]`);
          visit(x, `${path}.get(${keyText(k, `${path}.keys()[${i}]`)})`);
          i++;
        }
      } else if (o instanceof Set) {
        let i = 0;
        for (const x of o) visit(x, `${path}.values()[${i++}]`);
      }
      if (Array.isArray(o)) {
        for (let i = 0; i < o.length; i++) visit(o[i], `${path}[${i}]`);
        continue;
      }
      for (const key of ownKeys(o)) {
        const d = Object.getOwnPropertyDescriptor(o, key) as PropertyDescriptor;
        if ('value' in d) visit(d.value, path + step(key));
        else {
          visit(d.get, `${path + step(key)} (getter)`);
          visit(d.set, `${path + step(key)} (setter)`);
        }
      }
    }
    level = next;
  }
  return problems;
}

/** A typed array's constructor, found by its tag (a subclass such as Node's Buffer keeps its prototype). */
type ViewConstructor = new (buffer: ArrayBufferLike, byteOffset: number, length: number) => ArrayBufferView;

/** Copies one object graph; see {@link copyState}. */
class Copier {
  /** Each original object or function, and its copy. */
  private readonly memo = new Map<unknown, unknown>();
  /** Originals whose copies wait for their fields: [original, copy, the counterpart in `into` of the original's fields' values or undefined]. */
  private readonly pending: Array<[object, object, unknown]> = [];
  /** Objects of `into` already taken by a copy (each is taken once). */
  private readonly taken = new Set<object>();
  /** Copies whose class re-seeds its own random state ({@link RESEED}), in the order they were made. */
  readonly reseeded: object[] = [];
  private readonly stateless: ReadonlySet<AnyFunction>;
  /** The first refusal met, if any: the copy is then abandoned. */
  refused = false;

  constructor(private readonly rule: StreamRule, stateless: Iterable<AnyFunction>) {
    this.stateless = new Set(stateless);
  }

  /** The copy of `v`, made (shallowly, its fields queued) on first sight; `like` is its counterpart in `into`, if any. */
  copy(v: unknown, like?: unknown): unknown {
    if (typeof v !== 'object' || v === null) {
      if (typeof v !== 'function') return v;
    }
    const known = this.memo.get(v);
    if (known !== undefined) return known;
    const made = typeof v === 'function' ? this.copyFunction(v as AnyFunction) : this.shell(v as object, like);
    this.memo.set(v, made);
    return made;
  }

  private copyFunction(fn: AnyFunction): unknown {
    if (this.stateless.has(fn) || isStateless(fn)) return fn;
    const parts = clientStreamParts(fn as Uniform);
    if (parts !== null) return clientStream(this.copy(parts.random) as ClientRandom, this.copy(parts.cursor) as { client: number });
    const copied = copyStream(fn as Uniform, this.rule);
    if (copied === null) this.refused = true;
    return copied ?? fn;
  }

  private buffer(b: ArrayBufferLike): ArrayBufferLike {
    // Shared memory is shared on purpose (with other threads): the copy uses the same.
    if (typeof SharedArrayBuffer !== 'undefined' && b instanceof SharedArrayBuffer) return b;
    const known = this.memo.get(b);
    if (known !== undefined) return known as ArrayBufferLike;
    const r = b as ArrayBuffer & { resizable?: boolean; maxByteLength?: number };
    let made: ArrayBuffer;
    if (r.resizable === true) {
      made = new (ArrayBuffer as unknown as new (n: number, o: { maxByteLength: number }) => ArrayBuffer)(r.byteLength, { maxByteLength: r.maxByteLength as number });
      new Uint8Array(made).set(new Uint8Array(r));
    } else {
      made = r.slice(0);
    }
    this.memo.set(b, made);
    return made;
  }

  /** `like` when it can take `v`'s copy: an object of `into` not yet taken, of `v`'s prototype and own keys in order, extensible; else null. */
  private reusable(v: object, like: unknown): object | null {
    if (typeof like !== 'object' || like === null || this.taken.has(like) || !Object.isExtensible(like)) return null;
    if (Object.getPrototypeOf(like) !== Object.getPrototypeOf(v)) return null;
    const a = ownKeys(v);
    const b = ownKeys(like);
    if (a.length !== b.length) return null;
    for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return null;
    for (const key of b) {
      const d = Object.getOwnPropertyDescriptor(like, key) as PropertyDescriptor;
      if (d.configurable !== true && !('value' in d && d.writable === true)) return null;
    }
    this.taken.add(like);
    return like;
  }

  private shell(v: object, like?: unknown): object {
    if (ArrayBuffer.isView(v)) {
      const buffer = this.buffer(v.buffer);
      if (v instanceof DataView) return new DataView(buffer, v.byteOffset, v.byteLength);
      const typed = v as ArrayBufferView & { length: number; [Symbol.toStringTag]: string };
      const Ctor = (globalThis as unknown as Record<string, ViewConstructor>)[typed[Symbol.toStringTag]] as ViewConstructor;
      const made = new Ctor(buffer, typed.byteOffset, typed.length);
      const proto = Object.getPrototypeOf(v);
      if (Object.getPrototypeOf(made) !== proto) Object.setPrototypeOf(made, proto);
      return made;
    }
    if (v instanceof ArrayBuffer || (typeof SharedArrayBuffer !== 'undefined' && v instanceof SharedArrayBuffer)) return this.buffer(v);
    const proto = Object.getPrototypeOf(v);
    let made: object;
    if (Array.isArray(v)) {
      made = new Array(v.length);
      if (proto !== Array.prototype) Object.setPrototypeOf(made, proto);
    } else if (v instanceof Map) {
      made = new Map();
      if (proto !== Map.prototype) Object.setPrototypeOf(made, proto);
    } else if (v instanceof Set) {
      made = new Set();
      if (proto !== Set.prototype) Object.setPrototypeOf(made, proto);
    } else {
      if (uncopyable(v) !== null) {
        this.refused = true;
        return v;
      }
      // Copies made alike share their hidden classes (one family per class, apart from the
      // original's: see docs/performance.md, "Copies of a run's state"), unless `into` has the object.
      made = this.reusable(v, like) ?? (Object.create(proto) as object);
      if (typeof (made as { [RESEED]?: unknown })[RESEED] === 'function') this.reseeded.push(made);
    }
    this.pending.push([v, made, like]);
    return made;
  }

  /** Fills every queued copy's fields (and those of the objects they reach), until none is left or one is refused. */
  fill(): void {
    const pending = this.pending;
    while (pending.length > 0 && !this.refused) {
      const [from, to, like] = pending.pop() as [object, object, unknown];
      const likeArray = Array.isArray(like) ? (like as unknown[]) : null;
      if (Array.isArray(from)) {
        const a = to as unknown[];
        for (let i = 0; i < from.length; i++) {
          const x = from[i];
          // Holes stay holes.
          if (x === undefined && !(i in from)) continue;
          a[i] = this.copy(x, likeArray?.[i]);
        }
      } else {
        if (from instanceof Map) {
          const likeMap = like instanceof Map ? like : null;
          for (const [k, x] of from) (to as Map<unknown, unknown>).set(this.copy(k), this.copy(x, likeMap?.get(k)));
        } else if (from instanceof Set) {
          for (const x of from) (to as Set<unknown>).add(this.copy(x));
        }
        this.fields(from, to, to === like ? null : like);
      }
      if (Object.isFrozen(from)) Object.freeze(to);
      else if (Object.isSealed(from)) Object.seal(to);
      else if (!Object.isExtensible(from)) Object.preventExtensions(to);
    }
  }

  /**
   * Copies `from`'s own properties onto `to`, in their order, with their attributes; each value's
   * counterpart in `into` is `to`'s own value there when `to` is reused from `into`, else `like`'s.
   */
  private fields(from: object, to: object, like: unknown): void {
    const source = typeof like === 'object' && like !== null ? (like as Record<PropertyKey, unknown>) : null;
    const reused = source === null && this.taken.has(to);
    for (const key of ownKeys(from)) {
      const d = Object.getOwnPropertyDescriptor(from, key) as PropertyDescriptor;
      if ('value' in d) {
        const counterpart = reused ? (to as Record<PropertyKey, unknown>)[key] : source?.[key];
        d.value = this.copy(d.value, counterpart);
        if (reused && d.writable === true && d.enumerable === true && d.configurable === true) {
          // A store into the field the constructor made keeps the object's hidden class.
          (to as Record<PropertyKey, unknown>)[key] = d.value;
          continue;
        }
      } else {
        if (d.get !== undefined) d.get = this.copy(d.get) as () => unknown;
        if (d.set !== undefined) d.set = this.copy(d.set) as (x: unknown) => void;
      }
      Object.defineProperty(to, key, d);
    }
  }
}

/**
 * A deep copy of a run's state `root` (a model, a simulator and everything they reach), from
 * which a run can go on as the original would, any number of times, each copy independent of
 * the original and of the others:
 * - identity is kept: an object reached twice is copied once, so shared references stay shared
 *   and cycles work; typed arrays are copied with their buffers, and views of one buffer stay
 *   views of one buffer (at the same offsets); arrays (holes kept), Map, Set (entries in their
 *   order, keys copied as values are), plain objects and class instances (with their
 *   prototype, own properties in their order with their attributes, frozen stays frozen);
 *   primitives as they are; a SharedArrayBuffer is shared, not copied (it is shared with other
 *   threads on purpose);
 * - random streams made by `stream` (random.ts) are copied as `options.streams` says: continued
 *   from their state (`original`: the copy draws exactly what the original would) or made anew
 *   from a fresh seed with the same names (`fresh`, under the master `freshOrigin` gives); every
 *   object whose class has a {@link RESEED} method (a `ClientRandom`, a `NamedSeed`: a seed kept
 *   as a number for later draws) is then re-seeded from the fresh seed; a `clientStream` (a
 *   uniform drawing from one client's generator) draws from the copies of its generator and cursor;
 * - functions listed in `options.stateless` or marked by `stateless` (random.ts) are shared; any
 *   other function is refused, and so are
 *   objects whose state is in internal slots (WeakMap, Promise, Date, iterators): a {@link SnapshotError} names
 *   the path from the root to each ({@link stateProblems}).
 * The original is not changed (its streams are read, not drawn from). Prototypes, and the
 * methods on them, are shared: only own state is copied.
 */
export function copyState<T>(root: T, options: CopyOptions): T {
  const stateless = [...(options.stateless ?? [])];
  const copier = new Copier(options.streams, stateless);
  const made = copier.copy(root, options.into);
  copier.fill();
  if (copier.refused) throw new SnapshotError(stateProblems(root, { ...options, stateless }));
  const rule = options.streams;
  if (rule.kind === 'fresh') {
    for (const o of copier.reseeded) {
      try {
        (o as { [RESEED](seed: number): void })[RESEED](rule.seed);
      } catch (e) {
        const problems = stateProblems(root, { ...options, stateless });
        throw new SnapshotError(problems.length > 0 ? problems : [`${options.rootName ?? DEFAULT_ROOT_NAME}: ${(e as Error).message}`]);
      }
    }
  }
  return made as T;
}
