import type { Method } from '../scenario.js';
import { endpointNamed, serviceNamed, type ServiceGraph } from './ServiceGraph.js';

/**
 * What of a service graph the model cannot run yet, one message per part (empty: it runs). The model
 * runs entries (one, or a weighted mix) at endpoints answered by their fleets or by handlers of
 * `work` and `call` steps, on `async` services (with their `maxInFlight`) and `threaded` ones, down
 * to leaf services (endpoints without steps), with bulkheads and several workloads. Optimistic-
 * concurrency fleets in a graph with handlers, and entry endpoints whose method differs from their
 * workload's operation's are validated but not simulated.
 */
export function unsimulatedGraphParts(graph: ServiceGraph, operationMethod: Method): string[] {
  const problems: string[] = [];
  const handlers = graph.services.some((s) => s.endpoints.some((e) => e.steps !== undefined));
  for (const { entries, method } of graph.workloads?.map((w) => ({ entries: w.entries, method: w.workload.method })) ?? [{ entries: graph.entries, method: operationMethod }]) {
    for (const entry of entries) {
      const endpoint = endpointNamed(serviceNamed(graph, entry.service), entry.endpoint);
      if (endpoint.method !== undefined && endpoint.method !== method) {
        problems.push(`scenario.services.${entry.service}.endpoints.${endpoint.name}.method ${endpoint.method} differs from the operation's ${method}: not simulated yet`);
      }
    }
  }
  for (const service of graph.services) {
    const at = `scenario.services.${service.name}`;
    if (handlers && service.fleet.kind === 'occ') problems.push(`${at}.fleet: an optimistic-concurrency fleet in a graph with handlers is not simulated yet`);
  }
  return problems;
}
