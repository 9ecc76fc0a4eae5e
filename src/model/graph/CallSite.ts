import type { CallEnds, Layers } from '../layers/Layers.js';
import type { StackTop } from '../layers/StackTop.js';
import type { CallCache } from './CallCache.js';
import type { ServiceLeaf } from './ServiceLeaf.js';
import type { ServiceHandlers } from './ServiceHandlers.js';
import { tableGrew } from '../../engine/memoryMeter.js';
import type { Uniform } from '../../engine/random.js';

/**
 * One call of a handler's `call` step (docs/experiments.md, "Service graphs"): its own stack of retrying layers
 * (a {@link Layers} with its own frames, requests and event kinds) whose leaf is the callee service
 * ({@link ServiceLeaf}). It remembers, per top frame, the handler, its generation and the call's
 * index, and tells the calling service when a call ends. With a lookaside cache ({@link CallCache})
 * the handler looks the operation's key up before the call (ServiceHandlers' call step), and the
 * call's end passes through the cache (fills, coalesced waiters) on its way to the handler.
 */
export class CallSite implements CallEnds {
  readonly owner: ServiceHandlers;
  readonly layers: Layers;
  /** The top of the call's stack, where a handler opens and starts each call (`layers.top`, read per call). */
  readonly top: StackTop;
  readonly leaf: ServiceLeaf;
  /**
   * The method code of the calls per workload (the workload index is the operation's key modulo
   * their count, see ServiceLeaf): one entry, the callee endpoint's method, when it declares one;
   * else each workload's operation method.
   */
  private readonly methods: Int8Array;
  readonly optional: boolean;
  /** The lookaside cache in front of the call (docs/experiments.md, "Caches"), or null. */
  readonly cache: CallCache | null;
  /** The chance that the call is made each time its step runs (1: always, and {@link made} is never drawn). */
  readonly probability: number;
  /** The stream that draws whether the call is made (a stream of its own; never drawn for a call always made). */
  readonly made: Uniform;
  private handler = new Int32Array(64);
  private gen = new Int32Array(64);
  private call = new Int32Array(64);

  constructor(owner: ServiceHandlers, layers: Layers, leaf: ServiceLeaf, methods: Int8Array, optional: boolean, cache: CallCache | null, probability: number, made: Uniform) {
    this.owner = owner;
    this.probability = probability;
    this.made = made;
    this.cache = cache;
    this.layers = layers;
    this.top = layers.top;
    this.leaf = leaf;
    this.methods = methods;
    this.optional = optional;
  }

  /** The method code of a call made for the operation keyed `opSeq`. */
  methodFor(opSeq: number): number {
    const m = this.methods;
    return m.length === 1 ? (m[0] as number) : (m[opSeq % m.length] as number);
  }

  /** Cancel the call of top frame f (its handler no longer waits), unless coalesced misses still wait for it. */
  cancel(f: number, t: number): void {
    const cache = this.cache;
    if (cache !== null) {
      if (cache.waitedFor(f)) return;
      cache.cancelled(f);
    }
    this.top.cancelCall(f, t);
  }

  /** Room for top frame f (out of line: {@link record} is on the path of every call). */
  private growTo(f: number): void {
    let n = this.handler.length;
    while (n <= f) n *= 2;
    tableGrew((n - this.handler.length) * 12);
    const grow = (a: Int32Array) => {
      const b = new Int32Array(n);
      b.set(a);
      return b;
    };
    this.handler = grow(this.handler);
    this.gen = grow(this.gen);
    this.call = grow(this.call);
  }

  /** Top frame f carries call j of handler h (generation gen); with a cache, the miss just looked up ({@link CallCache.lookup}). */
  record(f: number, h: number, gen: number, j: number): void {
    if (f >= this.handler.length) this.growTo(f);
    this.handler[f] = h;
    this.gen[f] = gen;
    this.call[f] = j;
    if (f < this.leaf.degradedTop.length) this.leaf.degradedTop[f] = 0;
    if (this.cache !== null) this.cache.calls(f);
  }

  callEnded(f: number, reason: number, outcome: number, t: number): void {
    const degraded = f < this.leaf.degradedTop.length && this.leaf.degradedTop[f] === 1;
    const h = this.handler[f] as number;
    const gen = this.gen[f] as number;
    const j = this.call[f] as number;
    if (this.cache !== null) this.cache.callEnded(f, h, gen, j, reason, outcome, degraded, t);
    else this.owner.callEnded(h, gen, j, reason, outcome, degraded, t);
  }

  wanted(f: number): boolean {
    return this.owner.waitsFor(this.handler[f] as number, this.gen[f] as number) || (this.cache !== null && this.cache.wantedByWaiters(f));
  }
}
