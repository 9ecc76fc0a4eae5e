/**
 * The graph found in the servicegraph series alone. A service is any `server` of an edge; a caller
 * that is never a server (`user`, a load generator) is a workload, entering at the servers it calls
 * at the rate of its requests. From the series alone, each service has one endpoint and makes all
 * its calls in one step, in parallel, joined by `all` (the series do not say the order); a call's
 * calls per request are the edge's requests over the caller's; the own work is the server time's
 * mean minus the sum of the calls' client-time means, each weighted by its calls per request; own
 * errors are the failed fraction of the requests minus the failed fraction of the calls, each
 * weighted the same way; own failures answered at once (in the lowest server-time bucket) are taken
 * out of the own work, the calls per request and the buckets, as the fault written for them answers
 * at once. Requests count attempts: retries are not told apart from calls.
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
  "Only metrics: a service's own failures are taken to answer at once, as the fault written for them does (those in the lowest bucket of its server time, up to their number): its own work, its calls per request and its server-time buckets are those of its other requests.",
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

/**
 * The requests of a service answered at once by its own failure: its own failed requests (the
 * failed fraction `ownFailed` of its server-time observations) whose server time is in the lowest
 * bucket of their edge's histogram, at most as many as that bucket holds (every own failure when no
 * edge has buckets: the fault written for them answers at once).
 */
function instantFailures(inbound: readonly EdgeSeries[], ownFailed: number): number {
  const count = sum(inbound.map((e) => e.serverTime.count));
  const failed = Math.round(ownFailed * count);
  const bucketed = inbound.filter((e) => e.serverTime.buckets.length > 0);
  if (bucketed.length === 0) return failed;
  const lowest = (e: EdgeSeries): number => {
    const finite = e.serverTime.buckets.filter((b) => Number.isFinite(b.le));
    return finite.length === 0 ? 0 : finite.reduce((a, b) => (b.le < a.le ? b : a)).count;
  };
  return Math.min(failed, sum(bucketed.map(lowest)));
}

/** `h` without `n` observations of ~0 s (taken from every cumulative bucket, and from the count; the sum is unchanged). */
function withoutInstant(h: DurationHistogram, n: number): DurationHistogram {
  if (n <= 0) return h;
  return { sumSec: h.sumSec, count: h.count - n, buckets: h.buckets.map((b) => ({ le: b.le, count: Math.max(0, b.count - n) })) };
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
    // The calls' failures per request, over every request.
    const childFailed = requests > 0 ? sum(outbound.map((e) => e.failed)) / requests : 0;
    const ownFailed = Math.max(0, failed - childFailed);
    // Requests its own failure answered at once did no work and made no calls (as the fault written answers them):
    // the own work and the calls per request are those of the other requests.
    const instant = serverCount > 0 ? instantFailures(inbound, ownFailed) : 0;
    const servedShare = serverCount > 0 ? (serverCount - instant) / serverCount : 1;
    let childMs = 0;
    const calls = outbound.map((e) => {
      const perRequest = requests > 0 && servedShare > 0 ? e.requests / requests / servedShare : 0;
      childMs += perRequest * (histogramMeanMs(e.clientTime) ?? histogramMeanMs(e.serverTime) ?? 0);
      const client = histogramMeanMs(e.clientTime);
      const server = histogramMeanMs(e.serverTime);
      if (client !== undefined && server !== undefined && e.connectionType === '') {
        hopSum += ((client - server) / 2) * e.requests;
        hopN += e.requests;
      }
      return { service: e.server, endpoint: undefined, perRequest, attemptsPerCall: 1, maxAttempts: 1, retriesSeen: false, optional: false, calls: e.requests };
    });
    const servedMeanMs = servedShare > 0 ? serverMeanMs / servedShare : 0;
    const ownWorkMs = servedMeanMs - childMs;
    // A service that makes no calls: its server time is its own work, buckets and all (its instant failures taken out).
    const added = outbound.length === 0 && serverCount > 0 ? addedHistograms(inbound) : undefined;
    const serverTime = added === undefined ? undefined : withoutInstant(added, instant);
    if (ownWorkMs < 0) notes.push(`${name}: its calls' client-time means, weighted, exceed its server-time mean (${servedMeanMs.toPrecision(3)} ms): its own work is taken as 0 (parallel calls overlap).`);
    const endpoint: ObservedEndpoint = {
      requests,
      ownWorkMs: Math.max(0, ownWorkMs),
      ownErrorRate: ownFailed,
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
