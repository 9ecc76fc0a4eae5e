import { growColumns, rowBytes, NO_F64, NO_I32, NO_U8, type ColumnSpec } from '../typedArrays.js';

/** The columns of the handler table (their number sizes the buffer). */
const HANDLER_COLUMNS: ColumnSpec<HandlerTable> = {
  f64: ['hDeadline', 'hOpSeq'],
  i32: ['hCaller', 'hR', 'hEndpoint', 'hStep', 'hGen', 'hSucc', 'hPending', 'hBackend', 'hSlot'],
  u8: ['hChain', 'hBad', 'hDegraded', 'hHeld'],
};

/** Bytes of a handler's row (its columns; its timer generation is 4 more). */
export const HANDLER_ROW_BYTES = rowBytes(HANDLER_COLUMNS);

/**
 * The handlers running at one service (docs/experiments.md, "Service graphs"): one row per request being
 * handled, typed-array columns reused through a free list and grown by doubling, plus the frames of
 * the current step's calls (`hFrames[h * maxCalls + j]`, -1 once call j has ended or is no longer
 * followed). A handler's generation `hGen` changes when its step decides and when it ends, so a call
 * left outstanding recognises that nothing waits for it any more.
 */
export class HandlerTable {
  private cap = 0;
  private readonly free: number[] = [];
  private next = 0;
  readonly maxCalls: number;
  /** The absolute time the caller's attempt stops waiting: the deadline of the handler's calls. */
  hDeadline: Float64Array = NO_F64;
  hOpSeq: Float64Array = NO_F64;
  /** The caller (its index among the graph's stacks) and its request. */
  hCaller: Int32Array = NO_I32;
  hR: Int32Array = NO_I32;
  hEndpoint: Int32Array = NO_I32;
  hStep: Int32Array = NO_I32;
  hGen: Int32Array = NO_I32;
  /** The current step: calls succeeded, and calls not yet ended. */
  hSucc: Int32Array = NO_I32;
  hPending: Int32Array = NO_I32;
  /** The backend of the service handling the request (the instance of its call stacks' layers), pinned on arrival. */
  hBackend: Int32Array = NO_I32;
  /** The handler's slot in its service's fleet table (its work steps and its held worker). */
  hSlot: Int32Array = NO_I32;
  /** 1 when a layer upstream is on a retry. */
  hChain: Uint8Array = NO_U8;
  hBad: Uint8Array = NO_U8;
  /** 1 once an optional call failed, or a call's success was degraded. */
  hDegraded: Uint8Array = NO_U8;
  /** 1 while a threaded handler holds its worker (from `workerTaken` to its end). */
  hHeld: Uint8Array = NO_U8;
  hFrames = new Int32Array(0);

  constructor(maxCalls: number, initial = 64) {
    this.maxCalls = Math.max(1, maxCalls);
    this.grow(initial);
  }

  private grow(n: number): void {
    growColumns<HandlerTable>(this, HANDLER_COLUMNS, n);
    const frames = new Int32Array(n * this.maxCalls).fill(-1);
    frames.set(this.hFrames);
    this.hFrames = frames;
    this.cap = n;
  }

  alloc(): number {
    const h = this.free.length > 0 ? (this.free.pop() as number) : this.next++;
    if (h >= this.cap) this.grow(this.cap * 2);
    return h;
  }

  /**
   * Handler h follows none of its step's calls any more (their frames set to -1). A loop, not
   * `fill`: TypedArray.prototype.fill is a C++ builtin in V8 (Node 20), reached through a runtime
   * exit, about 300 instructions a call under callgrind for the two or three entries here, and
   * this runs on every step that ends.
   */
  forgetCalls(h: number): void {
    const frames = this.hFrames;
    const end = (h + 1) * this.maxCalls;
    for (let i = h * this.maxCalls; i < end; i++) frames[i] = -1;
  }

  /** Release handler h: its generation moves on, so its outstanding calls are no longer waited for. */
  release(h: number): void {
    this.hGen[h] = (this.hGen[h] as number) + 1;
    this.free.push(h);
  }
}
