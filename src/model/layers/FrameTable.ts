import { Timers } from '../../engine/timers.js';
import * as outcomeModule from '../../policy/outcome.js';
import { growColumns, rowBytes, NO_F64, NO_I32, NO_U8, type ColumnSpec } from '../typedArrays.js';
// Bound in this module: TurboFan folds a module's own constants, not imported bindings (docs/performance.md, "Imported bindings").
const { Outcome } = outcomeModule;

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
 * The frames of a stack: one layer's call for one operation, a row of typed-array columns (no
 * object per call), reused through a free list and grown by doubling. Each frame has a timer
 * generation (`frameTimers`: its wake-up, timeout, arrival and answer events; a new attempt or the
 * end of the frame makes the older ones stale) and a hedge timer.
 *
 * The columns are public to read (the layers, the hedges, a graph's `ServiceLeaf`), and written
 * only here, by the named steps of a frame's life below ({@link openTop}, {@link openChild},
 * {@link beginCall}, {@link attemptSent}, {@link attemptOver}, ...): every writer of a column is in
 * this file (test/model/frameColumns.test.ts checks it).
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
  /** The frame's layer (0: the top). */
  fLayer: Int32Array = NO_I32;
  /** The calling frame (-1 at the top) and its attempt generation when it called. */
  fParent: Int32Array = NO_I32;
  fParentGen: Int32Array = NO_I32;
  /** Attempts made so far. */
  fAttempts: Int32Array = NO_I32;
  /** The client (a graph call site's: the calling backend) whose call this is. */
  fClient: Int32Array = NO_I32;
  /** The instance of its layer the frame's client goes through (client % instances), set where the layer has budgets or admission control (0 elsewhere). */
  fInst: Int32Array = NO_I32;
  /** The downstream call in flight: a frame, ~request, or {@link NO_CHILD}. */
  fChild: Int32Array = NO_I32;
  /** The last attempt's outcome (an `OutcomeCode`). */
  fLastOutcome: Int32Array = NO_I32;
  /** The outcome this frame answers its caller across the hop (an `OutcomeCode`). */
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

  /** Room for `initial` frames (grown by doubling). */
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
  get count(): number {
    return this.fNext;
  }

  /** A free frame (its columns hold stale values: the caller's open step sets what it uses). */
  private alloc(): number {
    const free = this.fFree;
    return free.length > 0 ? (free.pop() as number) : this.allocNew();
  }

  /** {@link alloc} with no frame free: the next row, the table grown when full (apart, to keep the reuse of a frame small enough to inline). */
  private allocNew(): number {
    const f = this.fNext++;
    if (f >= this.fCap) this.growFrames(this.fCap * 2);
    return f;
  }

  /**
   * A top frame (layer 0, no parent) for a call of `client` through instance `inst`, with its
   * method, bad-input mark, retry-chain mark and operation number, its call begun at t
   * ({@link beginCall}: the deadline is its layer's loop's, absolute).
   */
  openTop(client: number, inst: number, method: number, bad: number, chain: number, opSeq: number, deadlineAtMs: number, initialPrevSleepMs: number, t: number): number {
    const f = this.alloc();
    this.fLayer[f] = 0;
    this.fParent[f] = -1;
    this.fParentGen[f] = 0;
    this.fClient[f] = client;
    this.fInst[f] = inst;
    this.fMethod[f] = method;
    this.fBad[f] = bad;
    this.fChain[f] = chain;
    this.fOpSeq[f] = opSeq;
    this.beginCall(f, deadlineAtMs, initialPrevSleepMs, t);
    return f;
  }

  /**
   * The frame frame f's attempt (armed with generation `gen`) opens at the next layer: the same
   * client, method, mark and operation, through instance `inst`, its deadline the attempt's end.
   * It becomes f's downstream call.
   */
  openChild(f: number, gen: number, inst: number, chain: number, end: number): number {
    const c = this.alloc();
    this.fLayer[c] = (this.fLayer[f] as number) + 1;
    this.fParent[c] = f;
    this.fParentGen[c] = gen;
    this.fClient[c] = this.fClient[f] as number;
    this.fInst[c] = inst;
    this.fMethod[c] = this.fMethod[f] as number;
    this.fBad[c] = this.fBad[f] as number;
    this.fChain[c] = chain;
    this.fOpSeq[c] = this.fOpSeq[f] as number;
    this.fDeadline[c] = end;
    this.fChild[c] = NO_CHILD;
    this.fChild[f] = c;
    return c;
  }

  /** Frame f's call begins at t: no attempt yet, its deadline (the loop's), and the backoff's first previous sleep. */
  beginCall(f: number, deadlineAtMs: number, initialPrevSleepMs: number, t: number): void {
    this.fDeadline[f] = deadlineAtMs;
    this.fAttempts[f] = 0;
    this.fBackoffBase[f] = 0;
    this.fInAttempt[f] = 0;
    this.fOutstanding[f] = 0;
    this.fStart[f] = t;
    this.fPrevSleep[f] = initialPrevSleepMs;
    this.fLastOutcome[f] = Outcome.DEADLINE_EXCEEDED;
    this.fLastRA[f] = NaN;
    this.fChild[f] = NO_CHILD;
  }

  /** Frame f sends its attempt number `n` (1 for the first; one more than fAttempts), in flight until `end`. */
  attemptSent(f: number, n: number, end: number): void {
    this.fAttempts[f] = n;
    this.fInAttempt[f] = 1;
    this.fAttemptEnd[f] = end;
  }

  /** Frame f's attempt calls request r of the leaf. */
  callsRequest(f: number, r: number): void {
    this.fChild[f] = ~r;
  }

  /** Frame f no longer has a downstream call (abandoned or cancelled). */
  dropChild(f: number): void {
    this.fChild[f] = NO_CHILD;
  }

  /** Frame f's attempt ended with `outcome` (and Retry-After `retryAfterMs`, NaN: none). */
  attemptOver(f: number, outcome: number, retryAfterMs: number): void {
    this.fChild[f] = NO_CHILD;
    this.fInAttempt[f] = 0;
    this.fLastOutcome[f] = outcome;
    this.fLastRA[f] = retryAfterMs;
  }

  /** A hedged frame f sends another copy. */
  hedgeSent(f: number): void {
    this.fOutstanding[f] = (this.fOutstanding[f] as number) + 1;
  }

  /** A copy of hedged frame f answered `outcome`: returns the copies still in flight. */
  hedgeAnswered(f: number, outcome: number, retryAfterMs: number): number {
    const outstanding = (this.fOutstanding[f] as number) - 1;
    this.fOutstanding[f] = outstanding;
    this.fLastOutcome[f] = outcome;
    this.fLastRA[f] = retryAfterMs;
    return outstanding;
  }

  /** Frame f's retry is planned: the backoff's state it carries to the next attempt. */
  retryPlanned(f: number, backoffBase: number, nextPrevSleepMs: number): void {
    this.fBackoffBase[f] = backoffBase;
    this.fPrevSleep[f] = nextPrevSleepMs;
  }

  /** Frame f's answer to its caller, held while it crosses the hop. */
  holdAnswer(f: number, result: number, retryAfterMs: number): void {
    this.fResOutcome[f] = result;
    this.fResRA[f] = retryAfterMs;
  }

  /** Release frame f: its pending events become stale. */
  free(f: number): void {
    this.frameTimers.cancel(f);
    this.hedgeTimers.cancel(f);
    this.fInAttempt[f] = 0;
    this.fChild[f] = NO_CHILD;
    this.fFree.push(f);
  }
}
