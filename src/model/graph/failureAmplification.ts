import type { Layer } from '../scenario.js';
import { endpointNamed, serviceNamed, WORKLOAD_CALLER, type GraphCall, type GraphEntry, type GraphStep, type ServiceGraph } from './ServiceGraph.js';

/** Calls on one edge of a graph, per operation. */
export interface EdgeCalls {
  /** The calling service, or {@link WORKLOAD_CALLER} for an entry edge. */
  caller: string;
  callee: string;
  callsPerOperation: number;
}

/** Attempts one call makes through a stack when every attempt fails: the product of its layers' maxAttempts. */
function attemptsOf(stack: readonly Layer[]): number {
  return stack.reduce((product, layer) => product * (layer.policy.maxAttempts === 'unlimited' ? Infinity : layer.policy.maxAttempts), 1);
}

/** The first `call` step of a handler: the one that runs when every call fails (a failed step ends the handler). */
function firstCallStep(steps: readonly GraphStep[] | undefined): Extract<GraphStep, { kind: 'call' }> | undefined {
  for (const step of steps ?? []) if (step.kind === 'call') return step;
  return undefined;
}

/**
 * The calls on every edge of a graph per operation when every call fails with a retryable outcome
 * and nothing else stops a retry: each layer makes its `maxAttempts`, so a call through a stack is
 * tried the product of its layers' attempts, and every attempt that reaches a service runs its
 * handler again. Calls on an edge X -> Y are the sum, over the paths from the entry whose last hop is
 * X -> Y, of the product of every layer's `maxAttempts` on the path, the entry stack included (the
 * SRE book's layering arithmetic, Beyer et al., "Site Reliability Engineering", O'Reilly 2016,
 * ch. 22, applied along each path). A handler stops at its first failed step, so only its first
 * `call` step runs (its calls all run to the end: without cancellation a join's outstanding calls go
 * on). The assumptions: no deadlines, cancellation, budgets, breakers, throttles, bulkheads, hedging
 * or optional calls, every call made (a call's `probability` counts as 1: the worst case), idempotent methods, unlimited queues and in-flight caps, and the leaf services
 * always refusing. An entry mix weighs each entry by its share of the weights. Edges are listed in
 * the order they are first reached. `caller` names the entry edges' caller (one of several workloads:
 * pass its entries as the graph's and its stack).
 */
export function callsIfEveryCallFails(graph: ServiceGraph, entryStack: readonly Layer[], caller: string = WORKLOAD_CALLER): EdgeCalls[] {
  const perEntry = attemptsOf(entryStack);
  const firstSteps = (service: string, endpoint: string): CallStep[] => {
    const step = firstCallStep(endpointNamed(serviceNamed(graph, service), endpoint).steps);
    return step === undefined ? [] : [step];
  };
  return callsOnEdges(caller, graph.entries, () => perEntry, firstSteps, (call) => attemptsOf(call.stack));
}

type CallStep = Extract<GraphStep, { kind: 'call' }>;

/**
 * The walk both the simulation's arithmetic ({@link callsIfEveryCallFails}) and `check`'s worst case
 * (src/check/graphWorstCase.ts) make of a graph: from each entry, weighted by its share of the
 * entries' weights, the workload's stack sends `perEntry(entry)` requests; each request runs the
 * steps `stepsOf` gives for its endpoint, each call of which sends `perCall(call)` requests per
 * request to its callee, and so on down. The calls on an edge X -> Y are summed over every call site
 * of X calling Y, weighted by the requests reaching X; edges are listed in the order first reached.
 */
export function callsOnEdges(
  caller: string,
  entries: readonly GraphEntry[],
  perEntry: (entry: GraphEntry) => number,
  stepsOf: (service: string, endpoint: string) => readonly CallStep[],
  perCall: (call: GraphCall) => number,
): EdgeCalls[] {
  const edges = new Map<string, EdgeCalls>();
  const add = (from: string, callee: string, calls: number): void => {
    const key = `${from}\u0000${callee}`;
    const edge = edges.get(key);
    if (edge === undefined) edges.set(key, { caller: from, callee, callsPerOperation: calls });
    else edge.callsPerOperation += calls;
  };
  const visit = (service: string, endpoint: string, requests: number): void => {
    for (const step of stepsOf(service, endpoint)) {
      for (const call of step.calls) {
        const calls = requests * perCall(call);
        add(service, call.service, calls);
        visit(call.service, call.endpoint, calls);
      }
    }
  };
  const totalWeight = entries.reduce((sum, e) => sum + e.weight, 0);
  for (const entry of entries) {
    const calls = (perEntry(entry) * entry.weight) / totalWeight;
    add(caller, entry.service, calls);
    visit(entry.service, entry.endpoint, calls);
  }
  return [...edges.values()];
}
