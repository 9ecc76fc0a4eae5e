/**
 * The graph found in the servicegraph series alone. A service is any `server` of an edge; a caller
 * that is never a server (`user`, a load generator) is a workload, entering at the servers it calls
 * at the rate of its requests. From the series alone, each service has one endpoint and makes all
 * its calls in one step, in parallel, joined by `all` (the series do not say the order); a call's
 * calls per request are the edge's requests over the caller's; the own work is the server time's
 * mean minus the sum of the calls' client-time means, each weighted by its calls per request; own
 * errors are the failed fraction of the requests minus the failed fraction of the calls, each
 * weighted the same way. Requests count attempts: retries are not told apart from calls.
 */
import { histogramMeanMs, type DurationHistogram, type EdgeSeries } from './servicegraphSeries.js';
import type { ObservedEndpoint, ObservedGraph, ObservedService, ObservedWorkload } from './observedGraph.js';

/** The endpoint name of a service read from the series alone (they have no endpoints). */
export const METRICS_ENDPOINT = 'default';

/** The assumptions of a graph read from the series alone, stated in the file's description. */
export const METRICS_ASSUMPTIONS = [
  'Only metrics: retries cannot be told apart from calls (each attempt is a request in the servicegraph series), so rates and calls per request count attempts.',
  "Only metrics: each service's calls are one step, in parallel, joined by all (the series do not say the order).",
  "Only metrics: a service's own work is its server-time mean minus the client-time means of its calls, each weighted by its calls per request; its own error rate is its failed fraction minus its calls' failed fractions, weighted the same way.",
];

function sum(xs: readonly number[]): number {
  return xs.reduce((a, b) => a + b, 0);
}

/** The server-time histograms of `inbound` added up, or undefined when none has buckets or their bounds differ. */
function addedHistograms(inbound: readonly EdgeSeries[]): DurationHistogram | undefined {
  const timed = inbound.filter((e) => e.serverTime.count > 0);
  const first = timed[0]?.serverTime.buckets;
  if (first === undefined || first.length === 0) return undefined;
  const bounds = first.map((b) => b.le);
  if (!timed.every((e) => e.serverTime.buckets.length === bounds.length && e.serverTime.buckets.every((b, i) => b.le === bounds[i]))) return undefined;
  return {
    sumSec: sum(timed.map((e) => e.serverTime.sumSec)),
    count: sum(timed.map((e) => e.serverTime.count)),
    buckets: bounds.map((le, i) => ({ le, count: sum(timed.map((e) => (e.serverTime.buckets[i] as { count: number }).count)) })),
  };
}

/** The graph of the servicegraph edges over `windowSec` seconds. */
export function graphFromMetrics(edges: readonly EdgeSeries[], windowSec: number): ObservedGraph {
  const servers = new Set(edges.map((e) => e.server));
  const services = new Map<string, ObservedService>();
  const notes = [...METRICS_ASSUMPTIONS];
  let hopSum = 0;
  let hopN = 0;
  for (const name of servers) {
    const inbound = edges.filter((e) => e.server === name);
    const requests = sum(inbound.map((e) => e.requests));
    const serverCount = sum(inbound.map((e) => e.serverTime.count));
    const serverMeanMs = serverCount > 0 ? (sum(inbound.map((e) => e.serverTime.sumSec)) / serverCount) * 1000 : 0;
    const failed = requests > 0 ? sum(inbound.map((e) => e.failed)) / requests : 0;
    const outbound = edges.filter((e) => e.client === name && e.requests > 0);
    let childMs = 0;
    let childFailed = 0;
    const calls = outbound.map((e) => {
      const perRequest = requests > 0 ? e.requests / requests : 0;
      childMs += perRequest * (histogramMeanMs(e.clientTime) ?? histogramMeanMs(e.serverTime) ?? 0);
      childFailed += perRequest * (e.failed / e.requests);
      const client = histogramMeanMs(e.clientTime);
      const server = histogramMeanMs(e.serverTime);
      if (client !== undefined && server !== undefined && e.connectionType === '') {
        hopSum += ((client - server) / 2) * e.requests;
        hopN += e.requests;
      }
      return { service: e.server, endpoint: undefined, perRequest, attemptsPerCall: 1, maxAttempts: 1, retriesSeen: false, optional: false, calls: e.requests };
    });
    const ownWorkMs = serverMeanMs - childMs;
    // A service that makes no calls: its server time is its own work, buckets and all.
    const serverTime = outbound.length === 0 && serverCount > 0 ? addedHistograms(inbound) : undefined;
    if (ownWorkMs < 0) notes.push(`${name}: its calls' client-time means, weighted, exceed its server-time mean (${serverMeanMs.toPrecision(3)} ms): its own work is taken as 0 (parallel calls overlap).`);
    const endpoint: ObservedEndpoint = {
      requests,
      ownWorkMs: Math.max(0, ownWorkMs),
      ownErrorRate: Math.max(0, failed - childFailed),
      steps: calls.length > 0 ? [{ calls, join: 'all' }] : [],
    };
    services.set(name, {
      endpoints: new Map([[METRICS_ENDPOINT, endpoint]]),
      requests,
      peakInFlight: undefined,
      meanInFlight: windowSec > 0 ? (requests / windowSec) * (serverMeanMs / 1000) : 0,
      timed: serverCount > 0,
      ...(serverTime !== undefined ? { serverTime } : {}),
    });
  }
  const roots = [...new Set(edges.map((e) => e.client))].filter((c) => !servers.has(c));
  const workloads: ObservedWorkload[] = roots.map((root) => {
    const out = edges.filter((e) => e.client === root && e.requests > 0);
    const total = sum(out.map((e) => e.requests));
    return {
      name: root,
      entries: out.map((e) => ({ service: e.server, endpoint: undefined, weight: e.requests })),
      operationsPerSec: windowSec > 0 ? total / windowSec : 0,
      operations: total,
      attemptsPerOperation: 1,
      maxAttempts: 1,
      retriesSeen: false,
    };
  });
  return { services, workloads: workloads.filter((w) => w.entries.length > 0), hopMs: hopN > 0 && hopSum > 0 ? hopSum / hopN : undefined, windowSec, notes };
}
