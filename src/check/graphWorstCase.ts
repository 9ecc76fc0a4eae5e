import { endpointNamed, serviceNamed, type GraphCall, type GraphEntry, type GraphStep, type ServiceGraph } from '../model/graph/ServiceGraph.js';
import { callsOnEdges, type EdgeCalls } from '../model/graph/failureAmplification.js';
import { upwardOutcome } from '../model/graph/upwardOutcome.js';
import { Outcome } from '../policy/outcome.js';
import type { Method, PolicySpec } from '../policy/types.js';
import { classOutcome, FAILURE_CLASSES, worstCase, type FailureClass } from './worstCase.js';

/** Calls on one edge of a graph per entry operation, at worst (+Infinity: unbounded). */
export type EdgeWorstCase = EdgeCalls;

/** The worst case of one entry operation on every edge of a graph, when every leaf service fails with one class. */
export interface GraphWorstCase {
  failureClass: FailureClass;
  /** What the entry endpoint answers the workload's stack (a failure class, or `success` when no failure reaches it). */
  entryAnswer: FailureClass | 'success';
  /** Edges in the order a walk from the entries first reaches them. */
  edges: EdgeWorstCase[];
}

/** A graph as `check` reads it: the resolved graph, one workload's entries and stack, and the operation sent through it. */
export interface CheckGraph {
  graph: ServiceGraph;
  /** The caller named on the entry edges (`workload`, or the workload's name). */
  caller: string;
  /** Where the workload's operations arrive. */
  entries: GraphEntry[];
  /** The policies of the workload's stack, from the caller down. */
  entryPolicies: PolicySpec[];
  method: Method;
  deadlineMs?: number;
}

/** The failure class a service's answer stands for, or null for a success. */
function classOf(outcome: number): FailureClass | null {
  if (outcome === Outcome.SUCCESS) return null;
  const cls = FAILURE_CLASSES.find((c) => classOutcome(c) === outcome);
  if (cls === undefined) throw new Error(`internal: no failure class answers outcome ${outcome}`);
  return cls;
}

function isCallStep(step: GraphStep): step is Extract<GraphStep, { kind: 'call' }> {
  return step.kind === 'call';
}

/**
 * The calls on every edge of a graph per entry operation when every leaf service (an endpoint
 * without `call` steps) fails every request with `cls`, at worst. Each call's stack is walked by
 * check's worst case of one stack ({@link worstCase}: each layer retries the class it is answered
 * with, for the callee endpoint's method, as often as its attempt cap and its own time limits
 * allow, with the shortest waits) against the answer of the service it calls: a leaf service
 * answers `cls`; a handler answers what its failed step's deciding call ended with, mapped as a
 * failed handler answers upward (src/model/graph/upwardOutcome.ts: a 404 below is a 500 above, a
 * 429 a 503). Steps run in order, every call of a step runs to its end (no cancellation), and a
 * step whose calls are all optional succeeds (degraded), so the steps after it run too. The
 * workload's stack works to the operation's deadline; the call stacks below are walked without
 * the deadlines propagated to them, so their counts are upper bounds. Budgets, breakers,
 * bulkheads, throttles and hedging delays are not asked, as in the worst case of one stack.
 * The edges are summed and weighted as the simulation's arithmetic sums them
 * (src/model/graph/failureAmplification.ts, callsOnEdges).
 */
export function graphWorstCase(input: CheckGraph, cls: FailureClass): GraphWorstCase {
  const { graph } = input;
  const answers = new Map<string, number>();
  const methodOf = (service: string, endpoint: string): Method => endpointNamed(serviceNamed(graph, service), endpoint).method ?? input.method;
  /** Attempts one call makes through its stack against the callee's answer. */
  const callsPerCall = (call: GraphCall, answer: number): number => {
    const c = classOf(answer);
    if (c === null) return 1;
    return worstCase(
      call.stack.map((l) => l.policy),
      c,
      methodOf(call.service, call.endpoint),
      undefined,
    ).leafCalls;
  };
  /** The steps of a handler that run when every leaf fails, and its answer upward. */
  const handlerRun = (service: string, endpoint: string): { steps: Array<Extract<GraphStep, { kind: 'call' }>>; answer: number } => {
    const steps = (endpointNamed(serviceNamed(graph, service), endpoint).steps ?? []).filter(isCallStep);
    const run: Array<Extract<GraphStep, { kind: 'call' }>> = [];
    for (const step of steps) {
      run.push(step);
      const deciding = step.calls.filter((c) => !c.optional);
      if (deciding.length > 0) {
        // Every call below fails; the first required call's answer decides (they all map to the same answer upward).
        const first = deciding[0] as GraphCall;
        return { steps: run, answer: upwardOutcome(answerOf(first.service, first.endpoint)) };
      }
    }
    return { steps: run, answer: Outcome.SUCCESS };
  };
  /** What an endpoint answers its callers when every leaf fails with cls. */
  const answerOf = (service: string, endpoint: string): number => {
    const node = `${service}\u0000${endpoint}`;
    const known = answers.get(node);
    if (known !== undefined) return known;
    const hasCalls = (endpointNamed(serviceNamed(graph, service), endpoint).steps ?? []).some(isCallStep);
    const answer = hasCalls ? handlerRun(service, endpoint).answer : classOutcome(cls);
    answers.set(node, answer);
    return answer;
  };

  let entryAnswer: FailureClass | 'success' = 'success';
  const perEntry = (entry: GraphEntry): number => {
    const c = classOf(answerOf(entry.service, entry.endpoint));
    if (c !== null && entryAnswer === 'success') entryAnswer = c;
    return c === null ? 1 : worstCase(input.entryPolicies, c, input.method, input.deadlineMs).leafCalls;
  };
  const edges = callsOnEdges(
    input.caller,
    input.entries,
    perEntry,
    (service, endpoint) => handlerRun(service, endpoint).steps,
    (call) => callsPerCall(call, answerOf(call.service, call.endpoint)),
  );
  return { failureClass: cls, entryAnswer, edges };
}
