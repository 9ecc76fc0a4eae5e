import { tableGrew } from '../../engine/memoryMeter.js';
import { RequestTable } from '../RequestTable.js';
import * as requestTableModule from '../RequestTable.js';
import type { ServiceLeaf } from './ServiceLeaf.js';
// Bound in this module: TurboFan folds a module's own constants, not imported bindings (docs/performance.md, "Imported bindings").
const { R_HOP } = requestTableModule;

/** {@link FleetSlots.handlerOf} a fleet slot serving a plain (leaf) request. */
export const PLAIN_SLOT = -1;
/** ... of the slot of a withdrawn handler, which the fleet frees later (`LeafHost.release`). */
export const WITHDRAWN_SLOT = -2;

/**
 * The slots of one service's fleet table (its `RequestTable`) and whom each serves (docs/experiments.md,
 * "Service graphs"): the caller and its request to answer through, and the handler it serves or
 * {@link PLAIN_SLOT}. A call site's requests are slots of the callee's table already
 * (`ServiceLeaf.direct`: the caller frees them); a workload's entry stack keeps a table of its own,
 * and its request is copied into a slot ({@link slotFor}). Shared by the service's runtime and its
 * handlers.
 */
export class FleetSlots {
  /** The fleet's request table. */
  readonly req: RequestTable;
  /** Every stack calling a service of the graph, by its index (shared by the graph's services). */
  private readonly callers: ServiceLeaf[];
  /** Per fleet slot: the caller and its request. */
  private upCaller = new Int32Array(64);
  private upR = new Int32Array(64);
  /** Per fleet slot: the handler it serves, {@link PLAIN_SLOT} or {@link WITHDRAWN_SLOT}. */
  private slotHandler = new Int32Array(64).fill(PLAIN_SLOT);

  /** An empty table, its slots serving the stacks `callers`. */
  constructor(callers: ServiceLeaf[]) {
    this.callers = callers;
    this.req = new RequestTable(64);
  }

  /** The caller whose request slot s serves. */
  callerOf(s: number): ServiceLeaf {
    return this.callers[this.upCaller[s]!] as ServiceLeaf;
  }

  /** The caller's request that slot s serves. */
  requestOf(s: number): number {
    return this.upR[s]!;
  }

  /** The handler slot s serves, {@link PLAIN_SLOT} or {@link WITHDRAWN_SLOT}. */
  handlerOf(s: number): number {
    return this.slotHandler[s]!;
  }

  /** Room for fleet slot s (out of line: {@link serves} is on the path of every request). */
  private grow(s: number): void {
    const n = Math.max(s + 1, this.upR.length * 2);
    tableGrew((n - this.upR.length) * 12);
    const grow = (a: Int32Array, fill: number) => {
      const b = new Int32Array(n).fill(fill);
      b.set(a);
      return b;
    };
    this.upCaller = grow(this.upCaller, 0);
    this.upR = grow(this.upR, 0);
    this.slotHandler = grow(this.slotHandler, PLAIN_SLOT);
  }

  /** Fleet slot s serves request r of caller `leaf` (for handler `handler`, or {@link PLAIN_SLOT}). */
  serves(s: number, leaf: ServiceLeaf, r: number, handler: number): void {
    if (s >= this.upR.length) this.grow(s);
    this.upCaller[s] = leaf.caller;
    this.upR[s] = r;
    this.slotHandler[s] = handler;
    this.req.plain(s);
  }

  /** A slot of the fleet's table for a request of caller `leaf`, its fields copied from the caller's request r. */
  slotFor(leaf: ServiceLeaf, r: number, handler: number): number {
    const req = this.req;
    const up = leaf.callerReq;
    const s = req.alloc();
    this.serves(s, leaf, r, handler);
    req.state[s] = R_HOP;
    req.parent[s] = -1;
    req.parentGen[s] = 0;
    req.client[s] = up.client[r]!;
    req.bad[s] = up.bad[r]!;
    req.chain[s] = up.chain[r]!;
    req.opSeq[s] = up.opSeq[r]!;
    req.deadline[s] = up.deadline[r]!;
    req.retryAfter[s] = NaN;
    req.backend[s] = -1;
    req.lbOpen[s] = 0;
    req.timers.arm(s);
    return s;
  }

  /** The handler slot s served was withdrawn: the fleet frees the slot later (`LeafHost.release`). */
  withdrawn(s: number): void {
    this.slotHandler[s] = WITHDRAWN_SLOT;
  }

  /** Free slot s, which served a handler that has ended (`direct`: it is its caller's request, which the caller frees). */
  freeHandlerSlot(s: number, direct: boolean): void {
    this.slotHandler[s] = PLAIN_SLOT;
    if (!direct) this.req.release(s);
  }

  /** Free slot s, which served a plain request (`direct`: it is its caller's request, which the caller frees). */
  freePlainSlot(s: number, direct: boolean): void {
    if (!direct) this.req.release(s);
  }
}
