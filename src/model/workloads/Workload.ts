import type { Simulator } from '../../engine/simulator.js';
import type { Scenario } from '../scenario.js';
import { Burst } from './Burst.js';
import { ClosedLoop } from './ClosedLoop.js';
import { OpenLoop } from './OpenLoop.js';

/** Where a workload's operations go: the top layer of the stack. */
export interface OperationStarter {
  /** Client `client` starts an operation at t (`bad` 1: it is bad input, answered 400). */
  startOperation(client: number, bad: number, t: number): void;
}

/**
 * A workload: when operations start and which client each belongs to (docs/concepts.md, "The model"). It
 * schedules its own events (kinds `K_OP_START` and `K_ARRIVAL` of eventKinds.ts, shifted by its
 * `kindBase`: a graph's second and further workloads have kinds of their own) and draws what
 * it decides from the `workload` stream (which client, whether the operation is bad input).
 */
export interface Workload {
  /** Operation starts and arrivals still scheduled (the run has work while > 0 or operations are in flight). */
  readonly pending: number;
  /** The cap on operations in flight at once (only an open loop can pile up). */
  readonly maxInFlight: number;
  /** Schedule the first operations; the run starts at t0 (-warmupMs). */
  start(t0: number): void;
  /** One of its events popped at t (`a`: the client of a `K_OP_START`): the operation starts. */
  fire(kind: number, a: number, t: number): void;
  /** An operation of `client` ended at t. */
  ended(client: number, t: number): void;
}

/** Whether the next operation is bad input, drawn with probability `fraction` (no draw when 0). */
export function drawBad(u: () => number, fraction: number): number {
  return fraction > 0 && u() < fraction ? 1 : 0;
}

/** The default branch of a switch over workload kinds: the compiler reports a kind left out. */
export function unknownWorkload(kind: never): never {
  throw new Error(`internal: unknown workload kind ${String(kind)}`);
}

/** The workload a scenario names. */
export function makeWorkload(sc: Scenario, sim: Simulator, seed: number, ops: OperationStarter, kindBase = 0): Workload {
  const w = sc.workload;
  switch (w.kind) {
    case 'open':
      return new OpenLoop(w, sc.maxInFlight, sim, seed, ops, kindBase);
    case 'closed':
      return new ClosedLoop(w, sim, seed, ops, kindBase);
    case 'burst':
      return new Burst(w, sim, seed, ops, kindBase);
    default:
      return unknownWorkload(w);
  }
}
