import { Timers } from '../engine/timers.js';
import { growF64, growI32, growU8 } from './typedArrays.js';

/** States of a leaf request slot. */
export const R_FREE = 0;
export const R_HOP = 1;
export const R_QUEUED = 2;
export const R_SERVICE = 3;
export const R_DELAYED = 4;
export const R_CANCELLED = 5;
export const R_HANG = 6;


/**
 * The requests that reach the leaf, one slot each in typed arrays (no object per request), reused
 * through a free list. A request outlives the attempt that sent it when its caller stops waiting:
 * the leaf keeps working on it. Each slot has a generation (`timers`) so that the events of a
 * freed or withdrawn request are recognised as stale.
 */
export class RequestTable {
  readonly timers = new Timers(1024);
  private cap = 0;
  private free: number[] = [];
  /** Slots ever used (state of slots >= next is R_FREE). */
  next = 0;
  state = new Uint8Array(0);
  /** The frame that sent the request, and that frame's attempt generation at the time. */
  parent = new Int32Array(0);
  parentGen = new Int32Array(0);
  client = new Int32Array(0);
  /** 1 when the operation is bad input (answered 400). */
  bad = new Uint8Array(0);
  /** 1 when any layer above is on a retry (the request is retry traffic, not original demand). */
  chain = new Uint8Array(0);
  outcome = new Int32Array(0);
  /** The backend the request was sent to (-1: none). */
  backend = new Int32Array(0);
  /** 1 until the load balancer has counted the request as finished (answered, timed out, lost). */
  lbOpen = new Uint8Array(0);
  /** OCC: the version read. */
  read = new Float64Array(0);
  opSeq = new Float64Array(0);
  /** When the caller stops waiting. */
  deadline = new Float64Array(0);
  /** When the request joined its backend's queue (for CoDel's sojourn time). */
  enqueuedAt = new Float64Array(0);
  serviceStart = new Float64Array(0);
  serviceMs = new Float64Array(0);
  /** The Retry-After or pushback hint of the answer (NaN: none). */
  retryAfter = new Float64Array(0);

  constructor(initial = 1024) {
    this.grow(initial);
  }

  private grow(n: number): void {
    this.state = growU8(this.state, n);
    this.parent = growI32(this.parent, n);
    this.parentGen = growI32(this.parentGen, n);
    this.client = growI32(this.client, n);
    this.bad = growU8(this.bad, n);
    this.chain = growU8(this.chain, n);
    this.outcome = growI32(this.outcome, n);
    this.backend = growI32(this.backend, n);
    this.lbOpen = growU8(this.lbOpen, n);
    this.read = growF64(this.read, n);
    this.opSeq = growF64(this.opSeq, n);
    this.deadline = growF64(this.deadline, n);
    this.enqueuedAt = growF64(this.enqueuedAt, n);
    this.serviceStart = growF64(this.serviceStart, n);
    this.serviceMs = growF64(this.serviceMs, n);
    this.retryAfter = growF64(this.retryAfter, n);
    this.timers.ensure(n);
    this.cap = n;
  }

  /** A free slot (its fields hold stale values: the caller sets what it uses). */
  alloc(): number {
    const r = this.free.length > 0 ? (this.free.pop() as number) : this.next++;
    if (r >= this.cap) this.grow(this.cap * 2);
    return r;
  }

  /** Release a slot: its pending events become stale. */
  release(r: number): void {
    this.timers.cancel(r);
    this.state[r] = R_FREE;
    this.free.push(r);
  }

  /** Slots in the given state (a scan, for end-of-run counts). */
  count(state: number): number {
    let n = 0;
    for (let r = 0; r < this.next; r++) if (this.state[r] === state) n++;
    return n;
  }
}
