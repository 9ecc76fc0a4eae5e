/**
 * Spans and metrics together: the structure, times, retries and errors from the spans (a sample),
 * the rates from the servicegraph series (every request). A workload's rate is its requests in the
 * series over the window, divided by the attempts per operation the spans show (the series count
 * attempts); a service's mean in flight is its requests in the series times its mean time in the
 * spans. Edges of the series that no span shows are named in the notes and left out.
 */
import type { ObservedGraph } from './observedGraph.js';

/** The span graph with the metric graph's rates (both over the metric graph's window). */
export function combineGraphs(fromSpans: ObservedGraph, fromMetrics: ObservedGraph): ObservedGraph {
  const notes = ['Structure, service times, retries and errors from the spans; rates from the servicegraph series.', ...fromSpans.notes];
  const workloads = fromSpans.workloads.map((w) => {
    const m = fromMetrics.workloads.find((x) => x.name === w.name);
    if (m === undefined) {
      notes.push(`Workload ${w.name}: no caller of that name in the servicegraph series; its rate is the span sample's.`);
      return w;
    }
    return { ...w, operationsPerSec: m.operationsPerSec / w.attemptsPerOperation };
  });
  const services = new Map(
    [...fromSpans.services].map(([name, s]) => {
      const m = fromMetrics.services.get(name);
      if (m === undefined || s.requests === 0) return [name, s] as const;
      // Little's law with the series' rate: in flight = rate x mean time (the span sample's mean time).
      const scale = m.requests / fromMetrics.windowSec / (s.requests / Math.max(fromSpans.windowSec, Number.MIN_VALUE));
      return [name, { ...s, requests: m.requests, meanInFlight: s.meanInFlight * scale }] as const;
    }),
  );
  for (const [name, m] of fromMetrics.services) {
    if (!services.has(name)) notes.push(`Service ${name} is in the servicegraph series but in no span: left out.`);
    for (const ep of m.endpoints.values()) {
      for (const c of ep.steps.flatMap((st) => st.calls)) {
        const seen = [...(services.get(name)?.endpoints.values() ?? [])].some((e) => e.steps.some((st) => st.calls.some((x) => x.service === c.service)));
        if (services.has(name) && !seen) notes.push(`Edge ${name} -> ${c.service} is in the servicegraph series but in no span: left out.`);
      }
    }
  }
  return { services, workloads, hopMs: fromSpans.hopMs ?? fromMetrics.hopMs, windowSec: fromMetrics.windowSec, notes };
}
