import type { Dist, Leaf as FleetSpec } from '../scenario.js';
import type { CallSite } from './CallSite.js';
import type { Join } from './ServiceGraph.js';

// The steps of a service's handlers as its runtime runs them (graph/ServiceRuntime.ts), and how a call step's join decides.

const JOIN_ALL = 0;
const JOIN_ANY = 1;
const JOIN_QUORUM = 2;

/** One `call` step of a handler, as the runtime runs it. */
export interface CallStepRuntime {
  kind: 'call';
  join: number;
  /** Successes that decide a quorum (all: every call; any: 1). */
  k: number;
  cancellation: boolean;
  sites: CallSite[];
  /** Whether a call of the step has a probability below 1 (then each run of the step draws which calls it makes). */
  sampled: boolean;
}

/** One `work` step of a handler, as the runtime runs it. */
export interface WorkStepRuntime {
  kind: 'work';
  /** The step's own service time; undefined: the serving backend's `serviceMs`. */
  serviceMs: Dist | undefined;
  /** The name of the step's random stream at its service's fleet (`<endpoint>/<step index>`). */
  name: string;
  /** The fleet's sampler code for the step (`ServerFarm.registerWork`; 0: the backend's own), set by {@link ServiceRuntime.connect}. */
  code: number;
}

export type StepRuntime = CallStepRuntime | WorkStepRuntime;

/** The join's code and quorum for {@link CallStepRuntime}. */
export function joinCode(join: Join, calls: number): { join: number; k: number } {
  switch (join.kind) {
    case 'all':
      return { join: JOIN_ALL, k: calls };
    case 'any':
      return { join: JOIN_ANY, k: 1 };
    case 'quorum':
      return { join: JOIN_QUORUM, k: join.k };
    default: {
      // A new join kind is a compile error here until it has its code.
      const unknown: never = join;
      throw new Error(`unknown join ${JSON.stringify(unknown)}`);
    }
  }
}

/** Step `index` of endpoint `endpoint`, a `work` step, as the runtime runs it. */
export function workStep(serviceMs: Dist | undefined, endpoint: string, index: number): WorkStepRuntime {
  return { kind: 'work', serviceMs, name: `${endpoint}/${index}`, code: 0 };
}

/** An endpoint as the runtime runs it: null steps, the fleet answers as a leaf does. */
export interface EndpointRuntime {
  steps: StepRuntime[] | null;
}

/** The backends of a fleet (the instances of its callers' layers). */
export function backendsOf(fleet: FleetSpec): number {
  return fleet.kind === 'pool' ? fleet.clusters.reduce((n, c) => n + c.backends.length, 0) : 1;
}

/** {@link joinDecision}: the join waits for more calls. */
export const UNDECIDED = 0;
/** ... the step succeeds. */
export const JOINED = 1;
/** ... the step fails. */
export const JOIN_FAILED = 2;

/**
 * What a call step's join decides as one of its calls ends (docs/experiments.md, "Service graphs"): `ok`, the
 * call succeeded; `optional`, it was an optional call; `succ` and `pending`, the step's successes
 * and calls not yet ended, this one counted. `all` fails at the first failed required call and
 * succeeds once no call is pending; `any` succeeds at the first success and fails once every call
 * failed; a quorum k succeeds at the k-th success and fails once fewer than k can still succeed.
 */
export function joinDecision(step: CallStepRuntime, ok: boolean, optional: boolean, succ: number, pending: number): number {
  if (step.join === JOIN_ALL) {
    if (!ok && !optional) return JOIN_FAILED;
    return pending === 0 ? JOINED : UNDECIDED;
  }
  if (step.join === JOIN_ANY) {
    if (ok) return JOINED;
    return pending === 0 ? JOIN_FAILED : UNDECIDED;
  }
  if (succ >= step.k) return JOINED;
  return succ + pending < step.k ? JOIN_FAILED : UNDECIDED;
}
