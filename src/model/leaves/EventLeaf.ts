import type { Simulator } from '../../engine/simulator.js';
import type { RequestTable } from '../RequestTable.js';
import type { BackendStats, Leaf, LeafAnswer, LeafContext, LeafHost, ServerSeries, ServerTotals } from './Leaf.js';

/**
 * The members of the {@link Leaf} contract that a leaf without servers does not use, written once:
 * a leaf that answers every request through its own events (the optimistic-concurrency row, the
 * script). It never answers at once (so {@link arriveAtOnce} and {@link hold} are never called), takes
 * no request ahead of its arrival unless it says so and overrides {@link arriveAhead}, has no
 * backend to route to, nothing to schedule at the start or close at the end, keeps nothing for a
 * withdrawn request but its slot, and has no server totals, series or backends. A subclass supplies
 * {@link arrive} and {@link dispatch}.
 */
export abstract class EventLeaf implements Leaf {
  readonly answersAtOnce = false;
  readonly arrivesAhead: boolean;
  protected readonly sim: Simulator;
  protected readonly req: RequestTable;
  protected readonly host: LeafHost;
  /** The first event kind of the leaf's range ({@link LeafContext.kindBase}). */
  protected readonly kindBase: number;

  constructor(ctx: LeafContext, arrivesAhead: boolean) {
    this.sim = ctx.sim;
    this.req = ctx.req;
    this.host = ctx.host;
    this.kindBase = ctx.kindBase;
    this.arrivesAhead = arrivesAhead;
  }

  abstract arrive(r: number, t: number): void;

  abstract dispatch(kind: number, a: number, b: number, t: number, active: boolean): boolean;

  start(): void {}

  route(): void {}

  arriveAtOnce(_frame: number, _attempt: number, _bad: boolean, _t: number, _answer: LeafAnswer): boolean {
    throw new Error(`internal: ${this.constructor.name} answers through its own events, never at once`);
  }

  hold(): void {
    throw new Error(`internal: ${this.constructor.name} holds no request answered at once`);
  }

  arriveAhead(_r: number, _gen: number, _t: number): void {
    throw new Error(`internal: ${this.constructor.name} takes no request ahead of its arrival`);
  }

  abandon(): void {}

  withdraw(r: number): void {
    this.host.release(r);
  }

  finish(): void {}

  totals(): ServerTotals | null {
    return null;
  }

  series(): ServerSeries | null {
    return null;
  }

  backendStats(): BackendStats[] | undefined {
    return undefined;
  }
}
