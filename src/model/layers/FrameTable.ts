import { Timers } from '../../engine/timers.js';
import { growColumns, rowBytes, NO_F64, NO_I32, NO_U8, type ColumnSpec } from '../typedArrays.js';

/** fChild value when no downstream call is outstanding; a leaf request r is stored as ~r. */
export const NO_CHILD = 0x7fffffff;

/** The columns of the frame table (their number sizes the buffer). */
const FRAME_COLUMNS: ColumnSpec<FrameTable> = {
  f64: ['fOpSeq', 'fDeadline', 'fStart', 'fPrevSleep', 'fLastRA', 'fResRA', 'fAttemptEnd'],
  i32: ['fLayer', 'fParent', 'fParentGen', 'fAttempts', 'fClient', 'fInst', 'fChild', 'fLastOutcome', 'fResOutcome', 'fBackoffBase', 'fOutstanding'],
  u8: ['fMethod', 'fBad', 'fChain', 'fInAttempt'],
};

/** Bytes of a frame's row (its columns; its timer generation is 4 more). */
export const FRAME_ROW_BYTES = rowBytes(FRAME_COLUMNS);

/**
 * The frames of a run: one layer's call for one operation, a row of typed-array columns (no object
 * per call), reused through a free list and grown by doubling. Each frame has a timer generation
 * (`frameTimers`: its wake-up, timeout, arrival and answer events; a new attempt or the end of the
 * frame makes the older ones stale) and a hedge timer. The columns are the model's internals: the
 * layers (`Layers`, `Hedging`) read and write them directly.
 */
export class FrameTable {
  readonly frameTimers = new Timers(16);
  readonly hedgeTimers = new Timers(16);
  private fCap = 0;
  private readonly fFree: number[] = [];
  private fNext = 0;
  /** The operation's sequence number (the same in every frame of an operation). */
  fOpSeq: Float64Array = NO_F64;
  /** The absolute time this frame's call must end by (Infinity: none). */
  fDeadline: Float64Array = NO_F64;
  /** When the call began at this layer. */
  fStart: Float64Array = NO_F64;
  /** The backoff's previous sleep (decorrelated jitter). */
  fPrevSleep: Float64Array = NO_F64;
  /** The last attempt's Retry-After (NaN: none); its outcome is in fLastOutcome. */
  fLastRA: Float64Array = NO_F64;
  /** The answer this frame sends its caller across the hop, and its Retry-After. */
  fResRA: Float64Array = NO_F64;
  /** When the current attempt stops waiting. */
  fAttemptEnd: Float64Array = NO_F64;
  fLayer: Int32Array = NO_I32;
  /** The calling frame (-1 at the top) and its attempt generation when it called. */
  fParent: Int32Array = NO_I32;
  fParentGen: Int32Array = NO_I32;
  /** Attempts made so far. */
  fAttempts: Int32Array = NO_I32;
  fClient: Int32Array = NO_I32;
  /** The instance of its layer the frame's client goes through (client % instances), set where the layer has budgets or admission control. */
  fInst: Int32Array = NO_I32;
  /** The downstream call in flight: a frame, ~request, or {@link NO_CHILD}. */
  fChild: Int32Array = NO_I32;
  fLastOutcome: Int32Array = NO_I32;
  fResOutcome: Int32Array = NO_I32;
  /** Attempts made before the last backoff reset (a gRPC pushback restarts the backoff sequence). */
  fBackoffBase: Int32Array = NO_I32;
  /** Hedging: copies in flight. */
  fOutstanding: Int32Array = NO_I32;
  /** The method's code (see `METHOD_CODES`). */
  fMethod: Uint8Array = NO_U8;
  /** 1 when the operation is bad input. */
  fBad: Uint8Array = NO_U8;
  /** 1 when some layer above is on a retry (the call is retry traffic). */
  fChain: Uint8Array = NO_U8;
  /** 1 while the frame has an attempt in flight (sent, not yet ended). */
  fInAttempt: Uint8Array = NO_U8;

  constructor(initial: number) {
    this.growFrames(initial);
  }

  private growFrames(n: number): void {
    growColumns<FrameTable>(this, FRAME_COLUMNS, n);
    this.hedgeTimers.ensure(n);
    this.frameTimers.ensure(n);
    this.fCap = n;
  }

  /** Frames ever allocated: every frame in use is below this. */
  protected get frameCount(): number {
    return this.fNext;
  }

  /** A free frame (its columns hold stale values: the caller sets what it uses). */
  protected allocFrame(): number {
    const f = this.fFree.length > 0 ? (this.fFree.pop() as number) : this.fNext++;
    if (f >= this.fCap) this.growFrames(this.fCap * 2);
    return f;
  }

  /** Release frame f: its pending events become stale. */
  protected freeFrame(f: number): void {
    this.frameTimers.cancel(f);
    this.hedgeTimers.cancel(f);
    this.fInAttempt[f] = 0;
    this.fChild[f] = NO_CHILD;
    this.fFree.push(f);
  }
}
