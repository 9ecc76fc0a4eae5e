import type { SimulationResults } from '../model/results.js';

/**
 * The scalar metrics of one run as a flat record of dotted names (`operations.succeeded`,
 * `latencyMs.p99`, `attempts.sdk.retries`, `clustering.10ms.peakToMean`...), the unit a sweep
 * aggregates across replications. Missing values (a latency with no successes) are left out.
 */
export function flattenMetrics(r: SimulationResults): Record<string, number> {
  const out: Record<string, number> = {};
  const put = (k: string, v: number | null | undefined) => {
    if (typeof v === 'number' && Number.isFinite(v)) out[k] = v;
  };
  for (const [k, v] of Object.entries(r.operations)) put(`operations.${k}`, v);
  for (const [k, v] of Object.entries(r.giveUps)) put(`giveUps.${k}`, v);
  for (const l of r.attempts) {
    put(`attempts.${l.layer}.first`, l.first);
    put(`attempts.${l.layer}.retries`, l.retries);
  }
  put('leafCalls', r.leafCalls);
  put('writes', r.writes);
  put('reads', r.reads);
  put('amplification', r.amplification);
  for (const [k, v] of Object.entries(r.latencyMs)) put(`latencyMs.${k}`, v);
  for (const [k, v] of Object.entries(r.operationMs)) put(`operationMs.${k}`, v);
  put('completionTimeMs', r.completionTimeMs);
  put('goodputPerSec', r.goodputPerSec);
  for (const [k, v] of Object.entries(r.server)) if (typeof v === 'number') put(`server.${k}`, v);
  for (const c of r.clustering) {
    put(`clustering.${c.binMs}ms.peakToMean`, c.peakToMean);
    put(`clustering.${c.binMs}ms.dispersionIndex`, c.dispersionIndex);
    put(`clustering.${c.binMs}ms.maxBin`, c.maxBin);
  }
  if (r.backends) {
    const byCluster = new Map<string, { crashes: number; ejections: number; served: number }>();
    for (const b of r.backends) {
      const c = byCluster.get(b.cluster) ?? { crashes: 0, ejections: 0, served: 0 };
      c.crashes += b.crashes;
      c.ejections += b.ejections;
      c.served += b.served;
      byCluster.set(b.cluster, c);
    }
    put('fleet.crashes', r.backends.reduce((n, b) => n + b.crashes, 0));
    put('fleet.ejections', r.backends.reduce((n, b) => n + b.ejections, 0));
    for (const [name, c] of byCluster) {
      put(`fleet.${name}.crashes`, c.crashes);
      put(`fleet.${name}.served`, c.served);
    }
    const down = r.timeSeries.fleet?.downBackends ?? [];
    put('fleet.maxDown', down.length > 0 ? Math.max(...down) : 0);
  }
  for (const c of r.retryClustering ?? []) {
    put(`retryClustering.${c.binMs}ms.peakToMean`, c.peakToMean);
    put(`retryClustering.${c.binMs}ms.maxBin`, c.maxBin);
  }
  put('simulatedMs', r.simulatedMs);
  put('successRate', r.operations.offered > 0 ? r.operations.succeeded / r.operations.offered : undefined);
  put('truncated', r.truncated === null ? 0 : 1);
  return out;
}
