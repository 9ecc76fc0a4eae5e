import { Timers } from '../engine/timers.js';
import { growColumns, rowBytes, NO_F64, NO_I32, NO_U8, type ColumnSpec } from './typedArrays.js';

/** States of a leaf request slot. */
export const R_FREE = 0;
export const R_HOP = 1;
export const R_QUEUED = 2;
export const R_SERVICE = 3;
export const R_DELAYED = 4;
export const R_CANCELLED = 5;
export const R_HANG = 6;
/**
 * The request is with its service's handler and at no worker (between `work` steps, after its
 * held worker was released): the farm neither queues nor serves it, and a crash does not touch it.
 */
export const R_HANDLER = 7;

/**
 * {@link RequestTable.work}: the request holds its worker (a threaded handler): when its service
 * starts the farm tells the host (`LeafHost.workerTaken`) instead of timing it, and frees the worker
 * when told to (`ServerFarm.releaseWorker`).
 */
export const WORK_HOLD = -1;

/** The columns of the request table. */
const REQUEST_COLUMNS: ColumnSpec<RequestTable> = {
  f64: ['read', 'opSeq', 'deadline', 'enqueuedAt', 'serviceStart', 'serviceMs', 'retryAfter'],
  i32: ['parent', 'parentGen', 'client', 'outcome', 'backend', 'work'],
  u8: ['state', 'bad', 'chain', 'lbOpen'],
};

/** Bytes of a request's row (its columns; its timer generation is 4 more). */
export const REQUEST_ROW_BYTES = rowBytes(REQUEST_COLUMNS);

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
  /**
   * 1 until the load balancer has counted the request as finished (answered, timed out, lost); 2
   * for a handler's request pinned to the backend picked on its arrival (`ServerFarm.pickBackend`):
   * the farm leaves it open until the handler answers (`ServerFarm.handlerAnswered`).
   */
  lbOpen: Uint8Array = NO_U8;
  /**
   * How the farm times the request's service: 0, its backend's own `serviceMs`; k > 0, the sampler
   * of a handler's `work` step (`ServerFarm.registerWork`); {@link WORK_HOLD}, not at all: the
   * request holds its worker until the host frees it. Only a service's handler runtime sets it; the
   * model's layers never do, so it stays 0 in every slot of the tables they fill. A host that sets
   * it clears it ({@link plain}) on a slot that then serves a plain leaf request.
   */
  work: Int32Array = NO_I32;
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
    growColumns<RequestTable>(this, REQUEST_COLUMNS, n);
    this.timers.ensure(n);
    this.cap = n;
  }

  /** A free slot (its fields hold stale values: the caller sets what it uses). */
  alloc(): number {
    const free = this.free;
    return free.length > 0 ? (free.pop() as number) : this.allocNew();
  }

  /** {@link alloc} with no slot free: the next row, the table grown when full (apart, to keep the reuse of a slot small enough to inline). */
  private allocNew(): number {
    const r = this.next++;
    if (r >= this.cap) this.grow(this.cap * 2);
    return r;
  }

  /** Release a slot: its pending events become stale. */
  release(r: number): void {
    this.timers.cancel(r);
    this.state[r] = R_FREE;
    this.free.push(r);
  }

  /** Clear the handler's column of slot r: its backend's own service time. */
  plain(r: number): void {
    this.work[r] = 0;
  }

  /** Slots in the given state (a scan, for end-of-run counts). */
  count(state: number): number {
    let n = 0;
    for (let r = 0; r < this.next; r++) if (this.state[r] === state) n++;
    return n;
  }
}
