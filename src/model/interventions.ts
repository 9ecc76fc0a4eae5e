import type { PolicySpec } from '../policy/types.js';
import type { Layer, Scenario } from './scenario.js';

/**
 * Timed interventions (docs/experiments.md, "Timed interventions"): at `atMs` an operator changes a layer's
 * policy or a service's settings, and the change governs every decision at or after that moment.
 * This file holds their resolved form (what src/experiment validates a scenario's `interventions`
 * into) and the run loop that applies them between the events; the layers, the farm and the
 * services each apply their own part (`Layers.swapPolicy`, `Backends.setQueueLimit`,
 * `ServiceRuntime.setMaxInFlight`, `CallCache.warm`).
 */

/** The stack an intervention changes: a workload's (null: the scenario's one workload), or a graph call's. */
export type StackRef =
  | { kind: 'workload'; workload: string | null }
  | { kind: 'call'; service: string; endpoint: string; step: number; call: number };

/** One change an intervention makes, resolved from the scenario as it stands after the intervention. */
export type InterventionChange =
  /** Layer `layer` of the stack takes `policy` (the layer's whole policy, recompiled and swapped in). */
  | { kind: 'policy'; stack: StackRef; layer: number; policy: PolicySpec }
  /** The fleet's backends (of `service`; null: the scenario's leaf) take these queue limits, one per backend in the farm's order (Infinity: unlimited). */
  | { kind: 'queueLimit'; service: string | null; limits: number[] }
  /** The service admits at most `value` requests in flight (Infinity: unlimited). */
  | { kind: 'maxInFlight'; service: string; value: number }
  /** The cache `cache` of `service` (null: the graph's shared tier `caches.<cache>`) is warmed with its `keys` most popular keys, every copy (CacheStore.warm). */
  | { kind: 'warm'; service: string | null; cache: string; keys: number };

/** One intervention of a scenario, resolved: when, the paths it sets (as written), and what changes. */
export interface Intervention {
  atMs: number;
  /** The dotted paths its `set` names, in the order written. */
  paths: string[];
  changes: InterventionChange[];
}

/** What a run's parts do when an intervention applies (the stack run's and the graph run's). */
export interface InterventionTarget {
  apply(change: InterventionChange, t: number): void;
}

/** The interventions a run applied (its results' `interventions`): when, and the paths each set. */
export interface AppliedIntervention {
  atMs: number;
  paths: string[];
}


/** Per layer of a stack of `layers` layers, the policies the interventions give it, in order (for `LayersOptions.laterPolicies`). */
export function laterPolicies(interventions: readonly Intervention[] | undefined, isStack: (ref: StackRef) => boolean, layers: number): PolicySpec[][] {
  const out: PolicySpec[][] = Array.from({ length: layers }, () => []);
  for (const iv of interventions ?? []) {
    for (const c of iv.changes) if (c.kind === 'policy' && isStack(c.stack)) out[c.layer]?.push(c.policy);
  }
  return out;
}

/** The key of a graph call's stack, as {@link StackRef} names it. */
export function callKey(service: string, endpoint: string, step: number, call: number): string {
  return `${service}\u0000${endpoint}\u0000${step}\u0000${call}`;
}

/** The layer `layer` of the stack `stack` names in a resolved scenario (undefined: it has no such layer). */
export function layerAt(sc: Scenario, stack: StackRef, layer: number): Layer | undefined {
  if (stack.kind === 'workload') {
    if (stack.workload === null) return sc.graph?.workloads === undefined ? sc.stack[layer] : undefined;
    return sc.graph?.workloads?.find((w) => w.name === stack.workload)?.stack[layer];
  }
  const service = sc.graph?.services.find((s) => s.name === stack.service);
  const step = service?.endpoints.find((ep) => ep.name === stack.endpoint)?.steps?.[stack.step];
  return step?.kind === 'call' ? step.calls[stack.call]?.stack[layer] : undefined;
}
