import { Timers } from '../engine/timers.js';
import { ColumnBuffer, NO_F64, NO_I32, NO_U8 } from './typedArrays.js';

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
  readonly timers: Timers;
  private cap = 0;
  private free: number[] = [];
  /** Slots ever used (state of slots >= next is R_FREE). */
  next = 0;
  state: Uint8Array = NO_U8;
  /** The frame that sent the request, and that frame's attempt generation at the time. */
  parent: Int32Array = NO_I32;
  parentGen: Int32Array = NO_I32;
  client: Int32Array = NO_I32;
  /** 1 when the operation is bad input (answered 400). */
  bad: Uint8Array = NO_U8;
  /** 1 when any layer above is on a retry (the request is retry traffic, not original demand). */
  chain: Uint8Array = NO_U8;
  outcome: Int32Array = NO_I32;
  /** The backend the request was sent to (-1: none). */
  backend: Int32Array = NO_I32;
  /** 1 until the load balancer has counted the request as finished (answered, timed out, lost). */
  lbOpen: Uint8Array = NO_U8;
  /** OCC: the version read. */
  read: Float64Array = NO_F64;
  opSeq: Float64Array = NO_F64;
  /** When the caller stops waiting. */
  deadline: Float64Array = NO_F64;
  /** When the request joined its backend's queue (for CoDel's sojourn time). */
  enqueuedAt: Float64Array = NO_F64;
  serviceStart: Float64Array = NO_F64;
  serviceMs: Float64Array = NO_F64;
  /** The Retry-After or pushback hint of the answer (NaN: none). */
  retryAfter: Float64Array = NO_F64;

  constructor(initial = 1024) {
    this.timers = new Timers(initial);
    this.grow(initial);
  }

  private grow(n: number): void {
    const c = new ColumnBuffer(n, 7, 5, 4);
    this.read = c.f64(this.read);
    this.opSeq = c.f64(this.opSeq);
    this.deadline = c.f64(this.deadline);
    this.enqueuedAt = c.f64(this.enqueuedAt);
    this.serviceStart = c.f64(this.serviceStart);
    this.serviceMs = c.f64(this.serviceMs);
    this.retryAfter = c.f64(this.retryAfter);
    this.parent = c.i32(this.parent);
    this.parentGen = c.i32(this.parentGen);
    this.client = c.i32(this.client);
    this.outcome = c.i32(this.outcome);
    this.backend = c.i32(this.backend);
    this.state = c.u8(this.state);
    this.bad = c.u8(this.bad);
    this.chain = c.u8(this.chain);
    this.lbOpen = c.u8(this.lbOpen);
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
