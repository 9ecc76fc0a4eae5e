import type { Method } from '../scenario.js';
import { endpointNamed, serviceNamed, type ServiceGraph } from './ServiceGraph.js';

/**
 * What of a service graph the model cannot run yet, one message per part (empty: it runs). The model
 * runs entries (one, or a weighted mix) at endpoints answered by their fleets or by handlers whose
 * steps are `call` steps, on async services, down to leaf services (endpoints without steps). `work`
 * steps, threaded services with handlers, in-flight caps, optimistic-concurrency fleets
 * in a graph with handlers, and entry endpoints whose method differs from the operation's are
 * validated but not simulated.
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
    service.endpoints.forEach((endpoint) => {
      (endpoint.steps ?? []).forEach((step, i) => {
        if (step.kind === 'work') problems.push(`${at}.endpoints.${endpoint.name}.steps.${i}: work steps are not simulated yet (call steps are)`);
      });
    });
    if (service.execution === 'threaded' && service.endpoints.some((e) => e.steps !== undefined)) {
      problems.push(`${at}.execution: handlers of threaded services are not simulated yet (set "async")`);
    }
    if (service.maxInFlight !== 'unlimited') problems.push(`${at}.maxInFlight: a cap on requests in flight is not simulated yet`);
    if (handlers && service.fleet.kind === 'occ') problems.push(`${at}.fleet: an optimistic-concurrency fleet in a graph with handlers is not simulated yet`);
  }
  return problems;
}
