import { K_ARRIVAL, K_FRAME_WAKE, K_LEAF_RESPONSE, K_OP_START, KIND_LIMIT, LEAF_KINDS_FROM } from '../eventKinds.js';
import { leafEventKinds } from '../leaves/makeLeaf.js';
import { CACHE_KINDS } from './CallCache.js';
import type { ServiceGraph } from './ServiceGraph.js';

/** The event kinds of one stack of layers: its frame, hedge and request kinds (eventKinds.ts, from K_FRAME_WAKE to K_LEAF_RESPONSE). */
export const STACK_KINDS = K_LEAF_RESPONSE - K_FRAME_WAKE + 1;

/** The event kinds of a workload after the first: its stack's and its arrivals' (the first workload's are the model's own). */
export const WORKLOAD_KINDS = STACK_KINDS + K_ARRIVAL - K_OP_START + 1;

/** How many event kinds a graph's run takes (`GraphRun`), and what takes them. */
export interface GraphEventKinds {
  /** Kinds in all; the event queue carries at most {@link KIND_LIMIT}. */
  needed: number;
  /** Call sites (every call of every step of every endpoint), each {@link STACK_KINDS}. */
  calls: number;
  /** Services, each its fleet's kinds (`fleetKinds` in all). */
  services: number;
  fleetKinds: number;
  /** Workloads after the first, each {@link WORKLOAD_KINDS}. */
  extraWorkloads: number;
  /** The caches' kinds (one range for all caches, {@link CACHE_KINDS}, when the graph has one; else 0). */
  cacheKinds: number;
}

/**
 * The event kinds a graph's run takes, counted as `GraphRun` takes them: the model's own below
 * {@link LEAF_KINDS_FROM} (the first workload's), {@link WORKLOAD_KINDS} for each further workload,
 * {@link STACK_KINDS} for each call site, the caches' range when there is a cache, and each
 * service's fleet's kinds.
 */
export function graphEventKinds(graph: ServiceGraph): GraphEventKinds {
  let calls = 0;
  let cache = false;
  let fleetKinds = 0;
  for (const s of graph.services) {
    fleetKinds += leafEventKinds(s.fleet.kind);
    for (const e of s.endpoints) {
      for (const step of e.steps ?? []) {
        if (step.kind !== 'call') continue;
        calls += step.calls.length;
        if (step.calls.some((c) => c.cache !== undefined)) cache = true;
      }
    }
  }
  const extraWorkloads = Math.max(0, (graph.workloads?.length ?? 1) - 1);
  const cacheKinds = cache ? CACHE_KINDS : 0;
  const needed = LEAF_KINDS_FROM + extraWorkloads * WORKLOAD_KINDS + calls * STACK_KINDS + cacheKinds + fleetKinds;
  return { needed, calls, services: graph.services.length, fleetKinds, extraWorkloads, cacheKinds };
}

/**
 * Why a graph cannot run, when its run would take more than {@link KIND_LIMIT} event kinds (the
 * event queue keeps an event's kind in the low bits of its sequence key, `seq * 256 + kind`), as the
 * rule said of `scenario.services` ("need 300 event kinds to run, at most 256 ..."); null when it fits.
 */
export function graphEventKindsProblem(graph: ServiceGraph): string | null {
  const k = graphEventKinds(graph);
  if (k.needed <= KIND_LIMIT) return null;
  const parts = [`${LEAF_KINDS_FROM} for the workload`];
  if (k.extraWorkloads > 0) parts.push(`${WORKLOAD_KINDS} for each of ${k.extraWorkloads} more workloads`);
  parts.push(`${STACK_KINDS} for each of ${k.calls} call sites`);
  if (k.cacheKinds > 0) parts.push(`${k.cacheKinds} for the caches`);
  parts.push(`${k.fleetKinds} for the fleets of ${k.services} services (${fleetKindsText(graph)} each)`);
  return `need ${k.needed} event kinds to run, at most ${KIND_LIMIT} (the simulator's event queue carries ${KIND_LIMIT}): ${parts.join(', ')}; use fewer calls or services`;
}

/** The kinds of one fleet, by fleet kind when they differ (`3`, or `3 (server), 2 (occ)`). */
function fleetKindsText(graph: ServiceGraph): string {
  const byKind = new Map<string, number>();
  for (const s of graph.services) byKind.set(s.fleet.kind, leafEventKinds(s.fleet.kind));
  if (new Set(byKind.values()).size <= 1) return String([...byKind.values()][0] ?? 0);
  return [...byKind].map(([kind, n]) => `${n} (${kind})`).join(', ');
}
