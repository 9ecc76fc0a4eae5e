import * as outcomeModule from '../../policy/outcome.js';
import type { Measurements } from '../Measurements.js';
import * as requestTableModule from '../RequestTable.js';
import { EventLeaf } from './EventLeaf.js';
import type { LastHop, LeafContext } from './Leaf.js';
// Bound in this module: TurboFan folds a module's own constants, not imported bindings (docs/performance.md, "Imported bindings").
const { Outcome } = outcomeModule;
const { R_HOP } = requestTableModule;

/** The OCC leaf's event kinds, relative to the first kind the model gives it. */
const K_WRITE = 0;
/** How many event kinds the OCC leaf schedules. */
export const OCC_EVENT_KINDS = 1;

/** How the model runs the OCC leaf. */
export interface OccOptions {
  /** The last hop takes no time. */
  hopZero: boolean;
  /** The event queue's lane for the writes (a constant hop above 0), or -1. */
  writeLane: number;
  /** Reads are taken when the request is sent (folds.ts `readAhead`). */
  readAhead: boolean;
}

/**
 * The optimistic-concurrency resource of the AWS 2015 contention study (docs/concepts.md, "The model"): one
 * versioned row; an attempt reads the version, then writes conditionally, each message crossing
 * the last hop. The write commits when no write committed since the read; otherwise it answers a
 * conflict. It answers at once (no queue, no service time). Reads and writes are counted apart.
 */
export class OccLeaf extends EventLeaf {
  private readonly m: Measurements;
  private readonly hopZero: boolean;
  private readonly writeLane: number;
  /** The last hop's cursor and sampler ({@link LastHop}): the leaf draws its hops itself. */
  private readonly hopStream: LastHop['stream'];
  private readonly hopSample: LastHop['sample'];
  private version = 0;
  /** Time of the last successful write (-Infinity before the first). */
  private lastCommitMs = -Infinity;

  constructor(ctx: LeafContext, options: OccOptions) {
    super(ctx, options.readAhead);
    this.m = ctx.measurements;
    this.hopZero = options.hopZero;
    this.writeLane = options.writeLane;
    const hop = ctx.host.lastHop();
    this.hopStream = hop.stream;
    this.hopSample = hop.sample;
  }

  dispatch(kind: number, a: number, b: number, t: number): boolean {
    // One kind: the write (a = request, b = its generation); a stale one is skipped.
    if (kind !== K_WRITE || !this.req.timers.isLive(a, b)) return false;
    this.write(a, t);
    return true;
  }

  /** The read of request r reaches the row at t: the write follows after the reply and the next request cross the hop. */
  arrive(r: number, t: number): void {
    const req = this.req;
    if (req.bad[r] === 1) {
      // Bad input is refused before the read.
      this.host.respond(r, Outcome.S400, NaN, t);
      return;
    }
    if (t >= 0) this.m.reads++;
    req.read[r] = this.version;
    // The read's reply and the write's request are folded into one delay: nothing decides between them.
    let d = 0;
    if (!this.hopZero) {
      this.hopStream.client = req.client[r] as number;
      const hop = this.hopSample;
      d = hop.sample() + hop.sample();
    }
    req.state[r] = R_HOP;
    // With a constant hop the writes come in the order of the reads: the write lane.
    this.sim.atInLane(this.writeLane, t + d, this.kindBase + K_WRITE, r, req.timers.arm(r));
  }

  /**
   * Request r (armed with generation `gen`), sent at t, reads without an event of its own (see
   * folds.ts, `readAhead`): its read reaches the row at tr = t + hop, so only the write at tr + 2
   * hops is scheduled, and `read` keeps tr. The write succeeds when no write committed since tr,
   * which is what reading the version at tr and comparing it at the write decides. The read is
   * counted as a leaf arrival once the clock passes tr ({@link Measurements.deferRead}).
   */
  override arriveAhead(r: number, gen: number, t: number): void {
    const req = this.req;
    this.hopStream.client = req.client[r] as number;
    const hop = this.hopSample;
    const tr = t + hop.sample();
    const d = hop.sample() + hop.sample();
    req.read[r] = tr;
    // A read during the warm-up is not counted: it need not wait (the queue would grow with the warm-up).
    if (tr >= 0) this.m.deferRead(tr, req.chain[r] as number);
    this.sim.at(tr + d, this.kindBase + K_WRITE, r, gen);
  }

  private write(r: number, t: number): void {
    const req = this.req;
    const m = this.m;
    m.leafArrival(req.chain[r] as number, t);
    if (t >= 0) m.write(t);
    let outcome: number = Outcome.CONFLICT;
    if (this.arrivesAhead ? (req.read[r] as number) > this.lastCommitMs : req.read[r] === this.version) {
      this.version++;
      this.lastCommitMs = t;
      outcome = Outcome.SUCCESS;
    }
    this.host.respond(r, outcome, NaN, t);
  }
}
