import type { Method } from '../scenario.js';
import { endpointNamed, serviceNamed, type ServiceGraph } from './ServiceGraph.js';

/**
 * What of a service graph the model cannot run yet, one message per part (empty: it runs). The model
 * runs a graph whose operations enter at one endpoint answered by its service's fleet as a leaf
 * answers (no handler steps, no in-flight cap, the operation's method): the `stack` + `leaf` run,
 * with that fleet as the leaf. Handlers with steps, entry mixes and in-flight caps are validated
 * but not simulated.
 */
export function unsimulatedGraphParts(graph: ServiceGraph, operationMethod: Method): string[] {
  const problems: string[] = [];
  if (graph.entries.length !== 1) {
    problems.push(`scenario.workload.entry lists ${graph.entries.length} entries: a mix of entries is not simulated yet`);
  }
  const entry = graph.entries[0];
  if (entry === undefined) return problems;
  const service = serviceNamed(graph, entry.service);
  const endpoint = endpointNamed(service, entry.endpoint);
  const at = `scenario.services.${service.name}`;
  if (endpoint.steps !== undefined) {
    problems.push(`${at}.endpoints.${endpoint.name}.steps: handlers with steps are not simulated yet (an entry endpoint without steps is, answered by its fleet)`);
  }
  if (endpoint.method !== undefined && endpoint.method !== operationMethod) {
    problems.push(`${at}.endpoints.${endpoint.name}.method ${endpoint.method} differs from the operation's ${operationMethod}: not simulated yet`);
  }
  if (service.maxInFlight !== 'unlimited') problems.push(`${at}.maxInFlight: a cap on requests in flight is not simulated yet`);
  return problems;
}
