import { EVENT_BYTES } from '../../engine/eventQueue.js';
import { LRU_ENTRY_BYTES, LRU_KEY_BYTES } from '../cache/LruCache.js';
import { ZIPF_BUILD_KEY_BYTES, ZIPF_KEY_BYTES } from '../cache/ZipfKeys.js';
import { FRAME_ROW_BYTES } from '../layers/FrameTable.js';
import { REQUEST_ROW_BYTES } from '../RequestTable.js';
import type { Layer, Scenario } from '../scenario.js';
import { scenarioWorkloads } from '../scenario.js';
import { WARM_REQUESTS_PER_ENTRY } from './CallCache.js';
import { callsIfEveryCallFails } from './failureAmplification.js';
import { HANDLER_ROW_BYTES } from './HandlerTable.js';
import { backendsOf } from './handlerSteps.js';
import { endpointNamed, serviceNamed, type ServiceGraph } from './ServiceGraph.js';

/** A row's timer generation (src/engine/timers.ts: Uint32). */
const TIMER_BYTES = 4;
/**
 * Per request, the graph's own columns beside the request table: the stack's leaf (ServiceLeaf:
 * three Int32 and a byte), the fleet slot's caller, request and handler (ServiceHandlers: three
 * Int32), its place in a backend's queue (Int32); per top frame of a call, its call site's handler,
 * generation and call (CallSite: three Int32).
 */
const REQUEST_SIDE_BYTES = 13 + 12 + 4;
const CALL_SITE_BYTES = 12;
/** Events a row keeps pending at once, at the most (an arrival or answer and a timeout each). */
const EVENTS_PER_ROW = 2;
/**
 * Tables grow by doubling, so a table holding n rows has room for up to 2n; and while it grows the
 * old columns and the new are both held.
 */
const GROWTH_SLACK = 2;

/** What a graph's run holds beside its clients and series (docs/cli.md, "Limits"). */
export interface GraphFootprint {
  /** Bytes one operation in flight can hold: over every edge, its calls per operation when every call fails, each with its frames, request, handler and events. */
  perOperationBytes: number;
  /** Operations in flight at once, at the most: an open loop's `maxInFlight`, a closed loop's or a burst's clients, summed over the workloads. */
  operations: number;
  /** Their product (Infinity when some stack retries without limit). */
  inFlightBytes: number;
  /** The caches' entries and key index (every copy), and their keys' popularity tables. */
  cacheBytes: number;
  /** Requests replayed before the run to warm the caches that start warm (every copy). */
  warmRequests: number;
}

/** Bytes of one call through `stack` to a service whose endpoint runs a handler (or not). */
function callBytes(stack: readonly Layer[], handler: boolean): number {
  const frames = stack.length * (FRAME_ROW_BYTES + TIMER_BYTES + EVENTS_PER_ROW * EVENT_BYTES) + CALL_SITE_BYTES;
  const request = REQUEST_ROW_BYTES + TIMER_BYTES + REQUEST_SIDE_BYTES + EVENTS_PER_ROW * EVENT_BYTES;
  return (frames + request + (handler ? HANDLER_ROW_BYTES + TIMER_BYTES : 0)) * GROWTH_SLACK;
}

/**
 * The memory a graph's run can hold, estimated from its structure: the operations that can be in
 * flight at once times what one can hold (every call it can cause when every call fails, each in
 * flight at once: without cancellation a retried call's earlier attempts go on downstream), and
 * the caches, whose size is fixed when the run starts.
 */
export function graphFootprint(sc: Scenario): GraphFootprint {
  const graph = sc.graph as ServiceGraph;
  const handlerAt = (service: string, endpoint: string) => endpointNamed(serviceNamed(graph, service), endpoint).steps !== undefined;
  // The stack of each edge: a workload's for an entry edge, else the heaviest call's on that edge.
  const stacks = new Map<string, { stack: readonly Layer[]; handler: boolean }>();
  for (const s of graph.services) {
    for (const e of s.endpoints) {
      for (const step of e.steps ?? []) {
        if (step.kind !== 'call') continue;
        for (const call of step.calls) {
          const key = `${s.name}\u0000${call.service}`;
          const handler = handlerAt(call.service, call.endpoint);
          const known = stacks.get(key);
          if (known === undefined || callBytes(call.stack, handler) > callBytes(known.stack, known.handler)) stacks.set(key, { stack: call.stack, handler });
        }
      }
    }
  }
  const workloads = graph.workloads ?? [{ name: undefined, entries: graph.entries, stack: sc.stack, workload: sc.workload }];
  let perOperationBytes = 0;
  for (const w of workloads) {
    const edges = w.name === undefined ? callsIfEveryCallFails(graph, w.stack) : callsIfEveryCallFails({ ...graph, entries: w.entries }, w.stack, w.name);
    let bytes = 0;
    for (const edge of edges) {
      const entry = w.entries.find((e) => e.service === edge.callee);
      const shape = stacks.get(`${edge.caller}\u0000${edge.callee}`) ?? { stack: w.stack, handler: entry !== undefined && handlerAt(entry.service, entry.endpoint) };
      bytes += edge.callsPerOperation * callBytes(shape.stack, shape.handler);
    }
    perOperationBytes = Math.max(perOperationBytes, bytes);
  }
  const operations = scenarioWorkloads(sc).reduce((n, w) => n + (w.kind === 'open' ? sc.maxInFlight : w.clients), 0);
  let cacheBytes = 0;
  let warmRequests = 0;
  const spaces = new Set<string>();
  const tiers = new Set<string>();
  for (const s of graph.services) {
    for (const e of s.endpoints) {
      for (const step of e.steps ?? []) {
        if (step.kind !== 'call') continue;
        for (const call of step.calls) {
          const c = call.cache;
          if (c === undefined) continue;
          // A shared tier is one store, however many calls look it up.
          if (c.shared) {
            if (tiers.has(c.name)) continue;
            tiers.add(c.name);
          }
          const copies = c.perBackend ? backendsOf(s.fleet) : 1;
          cacheBytes += copies * ((c.keys + 1) * LRU_KEY_BYTES + c.capacity * LRU_ENTRY_BYTES);
          if (c.initial === 'warm') warmRequests += copies * WARM_REQUESTS_PER_ENTRY * c.capacity;
          const space = `${c.keys}/${c.zipf}`;
          if (!spaces.has(space)) cacheBytes += c.keys * (ZIPF_KEY_BYTES + ZIPF_BUILD_KEY_BYTES);
          spaces.add(space);
        }
      }
    }
  }
  return { perOperationBytes, operations, inFlightBytes: perOperationBytes * operations, cacheBytes, warmRequests };
}
