import { OUTCOME_NAMES } from '../policy/outcome.js';
import { DEFAULT_CALL_PROBABILITY, type GraphService, type GraphStep, type Join, type ServiceGraph } from './graph/ServiceGraph.js';
import { NO_LAYER, type CacheTraceWhat, type ServiceTraceEvent, type TraceEvent, type TraceSite } from './trace.js';

/** A join as the timeline names it: `all`, `any` or `quorum k`. */
function joinName(join: Join): string {
  return join.kind === 'quorum' ? `quorum ${join.k}` : join.kind;
}

/**
 * The level (indentation) of each service's handlers in a traced graph's timeline: below the entry
 * stack (whose layers take levels 0 to its length - 1) for an entry service, and below the stack of
 * each call that reaches it (the call's layers take the levels after its caller's handler): the
 * longest such path from an entry, as the graph has no cycles (validation). A service nothing
 * reaches is at level 0.
 */
export function handlerLevels(graph: ServiceGraph, entryLayers: number): Map<string, number> {
  const level = new Map<string, number>();
  for (const e of graph.entries) level.set(e.service, Math.max(level.get(e.service) ?? 0, entryLayers));
  // Relax along the calls until nothing moves: a longest path in a graph without cycles settles within one round per service.
  for (let round = 0; round <= graph.services.length; round++) {
    let moved = false;
    for (const s of graph.services) {
      const from = level.get(s.name);
      if (from === undefined) continue;
      for (const ep of s.endpoints) {
        for (const step of ep.steps ?? []) {
          if (step.kind !== 'call') continue;
          for (const c of step.calls) {
            const to = from + 1 + c.stack.length;
            if (to > (level.get(c.service) ?? -1)) {
              level.set(c.service, to);
              moved = true;
            }
          }
        }
      }
    }
    if (!moved) break;
  }
  return level;
}

/** The site of call `c` made by a handler of `caller` at `handlerLevel`: its layers start one level below the handler. */
export function traceSite(caller: string, c: { service: string; endpoint: string; stack: Array<{ name: string }> }, handlerLevel: number): TraceSite {
  return { caller, callee: c.service, endpoint: c.endpoint, layers: c.stack.map((l) => l.name), level: handlerLevel + 1 };
}

/**
 * The workloads' names of a graph with several workloads (index as the operations' keys), or null
 * with one: its events need no workload.
 */
export type WorkloadNames = readonly string[] | null;

/** The name of the workload of operation key `op` (the key modulo the number of workloads). */
function workloadOf(names: readonly string[], op: number): string {
  return names[op % names.length] as string;
}

/** A sink that marks every event of a call's stack with its site (and with several workloads, its operation's workload). */
export function siteSink(sink: (e: TraceEvent) => void, site: TraceSite, workloads: WorkloadNames = null): (e: TraceEvent) => void {
  if (workloads === null) return (e) => sink({ ...e, site } as TraceEvent);
  return (e) => sink({ ...e, site, workload: workloadOf(workloads, e.op) } as TraceEvent);
}

/**
 * A sink for the own stack of workload `index` of a graph with several workloads `workloads`: its
 * events numbered by their operation's key in the graph (the workload's own number times the
 * number of workloads, plus `index`, as ServiceLeaf keys a request leaving the stack) and marked
 * with the workload's name, so that they join the services' events of the same operation.
 */
export function workloadSink(sink: (e: TraceEvent) => void, workloads: readonly string[], index: number): (e: TraceEvent) => void {
  const count = workloads.length;
  const workload = workloads[index] as string;
  return (e) => sink({ ...e, op: e.op * count + index, workload } as TraceEvent);
}

/**
 * What one service's runtime reports to a traced run's timeline: its handlers' starts, steps, join
 * decisions, answers and losses, and the requests its fleet answers for endpoints without steps
 * ({@link ServiceTraceEvent}), at its handlers' level; with several workloads, each event names its
 * operation's workload.
 */
export class ServiceTracer {
  private readonly endpoints: string[];
  private readonly steps: GraphStep[][];

  constructor(
    private readonly sink: (e: TraceEvent) => void,
    private readonly service: GraphService,
    private readonly level: number,
    private readonly workloads: WorkloadNames = null,
  ) {
    this.endpoints = service.endpoints.map((e) => e.name);
    this.steps = service.endpoints.map((e) => e.steps ?? []);
  }

  private emit(e: { event: ServiceTraceEvent['event'] } & Record<string, unknown>, op: number, endpoint: number, t: number): void {
    const ev = { tMs: t, op, layer: NO_LAYER, service: this.service.name, endpoint: this.endpoints[endpoint] as string, level: this.level, ...e } as ServiceTraceEvent;
    if (this.workloads !== null) ev.workload = workloadOf(this.workloads, op);
    this.sink(ev);
  }

  /** A handler starts for a request of `endpoint` (operation `op`). */
  handler(op: number, endpoint: number, t: number): void {
    this.emit({ event: 'handler' }, op, endpoint, t);
  }

  /** Step `step` (from 0) of the handler starts. */
  step(op: number, endpoint: number, step: number, t: number): void {
    const s = this.steps[endpoint]?.[step] as GraphStep;
    const calls = s.kind === 'call' ? s.calls.map((c) => `${c.service}.${c.endpoint}${c.optional ? ' (optional)' : ''}${c.probability < DEFAULT_CALL_PROBABILITY ? ` (probability ${c.probability})` : ''}`) : [];
    this.emit({ event: 'step', step, kind: s.kind, calls, join: s.kind === 'call' ? joinName(s.join) : '' }, op, endpoint, t);
  }

  /** The join of call step `step` decided. */
  join(op: number, endpoint: number, step: number, success: boolean, degraded: boolean, t: number): void {
    const s = this.steps[endpoint]?.[step] as GraphStep;
    this.emit({ event: 'join', step, join: s.kind === 'call' ? joinName(s.join) : '', decision: success ? 'success' : 'failure', degraded }, op, endpoint, t);
  }

  /** The handler answers its caller with `outcome`. */
  answer(op: number, endpoint: number, outcome: number, t: number): void {
    this.emit({ event: 'answer', outcome: OUTCOME_NAMES[outcome] as string }, op, endpoint, t);
  }

  /** A call's lookaside cache `cache`, for a handler of `endpoint`, with key `key`. */
  cache(op: number, endpoint: number, cache: string, key: number, what: CacheTraceWhat, t: number): void {
    this.emit({ event: 'cache', cache, key, what }, op, endpoint, t);
  }

  /** The handler's request was lost: nobody answers. */
  lost(op: number, endpoint: number, t: number): void {
    this.emit({ event: 'lost' }, op, endpoint, t);
  }

  /** A request for `endpoint` reached the service without a handler: the fleet of an endpoint without steps holds it in `slot`, or it is answered on arrival (`NO_SLOT` of trace.ts: by that fleet, or refused because `maxInFlight` are in flight). */
  fleetRequest(op: number, endpoint: number, slot: number, t: number): void {
    this.emit({ event: 'request', slot }, op, endpoint, t);
  }

  /** The fleet answered the request of `endpoint` in `slot` with outcome code `outcome`. */
  fleetAnswer(op: number, endpoint: number, slot: number, outcome: number, t: number): void {
    this.fleetResponse(op, endpoint, slot, OUTCOME_NAMES[outcome] as string, t);
  }

  /** The request of `endpoint` in `slot` ended with `outcome`: an outcome's name, or trace.ts's `LOST_RESPONSE` or `CANCELLED_RESPONSE`. */
  fleetResponse(op: number, endpoint: number, slot: number, outcome: string, t: number): void {
    this.emit({ event: 'response', slot, outcome }, op, endpoint, t);
  }
}
