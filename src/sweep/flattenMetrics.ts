import type { SimulationResults } from '../model/results.js';

/**
 * Dotted names are built once and reused: a sweep flattens thousands of runs that share every name,
 * and a name built per run costs a string concatenation plus its interning on the property store.
 * Each cache maps a part of the name (a give-up reason, a layer, a bin width) to its finished names;
 * a cache that grows past {@link NAME_CACHE_LIMIT} entries is emptied (names are then built again).
 */
const NAME_CACHE_LIMIT = 4096;

/** Names `${prefix}${key}` by key, for the records whose keys are taken as they come (`operations.*`). */
class PrefixedNames {
  private readonly names = new Map<string, string>();
  constructor(private readonly prefix: string) {}

  get(key: string): string {
    let name = this.names.get(key);
    if (name === undefined) {
      if (this.names.size >= NAME_CACHE_LIMIT) this.names.clear();
      name = this.prefix + key;
      this.names.set(key, name);
    }
    return name;
  }
}

/** Several names `${prefix}${part}${suffix}` by part (a layer name, a bin width), in the order of `suffixes`. */
class NameGroups<K extends string | number> {
  private readonly names = new Map<K, string[]>();
  constructor(
    private readonly prefix: string,
    private readonly suffixes: readonly string[],
  ) {}

  get(part: K): string[] {
    let names = this.names.get(part);
    if (names === undefined) {
      if (this.names.size >= NAME_CACHE_LIMIT) this.names.clear();
      names = this.suffixes.map((s) => `${this.prefix}${part}${s}`);
      this.names.set(part, names);
    }
    return names;
  }
}

const OPERATIONS = new PrefixedNames('operations.');
const GIVE_UPS = new PrefixedNames('giveUps.');
const LATENCY = new PrefixedNames('latencyMs.');
const OPERATION_MS = new PrefixedNames('operationMs.');
const SERVER = new PrefixedNames('server.');
const ATTEMPTS = new NameGroups<string>('attempts.', ['.first', '.retries']);
const CLUSTERING = new NameGroups<number>('clustering.', ['ms.peakToMean', 'ms.dispersionIndex', 'ms.maxBin']);
const RETRY_CLUSTERING = new NameGroups<number>('retryClustering.', ['ms.peakToMean', 'ms.maxBin']);
const CLUSTER_FLEET = new NameGroups<string>('fleet.', ['.crashes', '.served']);
/** A service graph's edges, named `edges.<caller>-><callee>.*` (names hold no "." or ">"). */
const EDGES = new NameGroups<string>('edges.', ['.calls', '.retries', '.ownRetries', '.amplification']);
/** A service graph's edges in a metric window, named `windows.<name>.edges.<caller>-><callee>.*` (window names hold no "."). */
const WINDOW_EDGES = new NameGroups<string>('windows.', ['.calls', '.retries', '.amplification']);

/** The metric present (1) only in the records of runs stopped at their memory ceiling (`truncated: "memory-cap"`). */
export const MEMORY_CEILING_METRIC = 'truncatedAtMemoryCeiling';

/** Store `v` under `k` when it is a finite number (a missing latency, null, is left out). */
function put(out: Record<string, number>, k: string, v: unknown): void {
  if (typeof v === 'number' && Number.isFinite(v)) out[k] = v;
}

/** Every number of a flat record under the names of `names` (non-numbers are left out). */
function putAll(out: Record<string, number>, names: PrefixedNames, record: object): void {
  const r = record as Record<string, unknown>;
  for (const k of Object.keys(r)) put(out, names.get(k), r[k]);
}

/**
 * The scalar metrics of one run as a flat record of dotted names (`operations.succeeded`,
 * `latencyMs.p99`, `attempts.sdk.retries`, `clustering.10ms.peakToMean`...), the unit a sweep
 * aggregates across replications. Missing values (a latency with no successes) are left out.
 */
export function flattenMetrics(r: SimulationResults): Record<string, number> {
  const out: Record<string, number> = {};
  putStackMetrics(out, r);
  if (r.backends) putFleet(out, r.backends, r.timeSeries.fleet?.downBackends ?? []);
  for (const c of r.retryClustering ?? []) {
    const [peakToMean, maxBin] = RETRY_CLUSTERING.get(c.binMs) as [string, string];
    put(out, peakToMean, c.peakToMean);
    put(out, maxBin, c.maxBin);
  }
  putWindows(out, r.windows ?? []);
  putEdges(out, r.edges ?? []);
  putWorkloads(out, r.workloads ?? []);
  for (const s of r.services ?? []) {
    for (const [k, v] of Object.entries(s)) if (k !== 'service') put(out, `services.${s.service}.${k}`, v);
    for (const [name, c] of Object.entries(s.caches ?? {})) {
      for (const [k, v] of Object.entries(c)) put(out, `services.${s.service}.caches.${name}.${k}`, v);
    }
  }
  // The graph's shared cache tiers (docs/experiments.md, "Caches").
  for (const [name, c] of Object.entries(r.caches ?? {})) {
    for (const [k, v] of Object.entries(c)) put(out, `caches.${name}.${k}`, v);
  }
  // The cascade timeline: when each service first got in trouble, crashed, recovered (absent: it did not).
  for (const e of r.cascade ?? []) put(out, `cascade.${e.service}.${e.event}AtMs`, e.atMs);
  put(out, 'simulatedMs', r.simulatedMs);
  put(out, 'successRate', r.operations.offered > 0 ? r.operations.succeeded / r.operations.offered : undefined);
  put(out, 'truncated', r.truncated === null ? 0 : 1);
  // Only in a run its memory ceiling stopped (so every other run's record is as before): the report names that bound.
  if (r.truncated === 'memory-cap') put(out, MEMORY_CEILING_METRIC, 1);
  return out;
}

/** What every run has: operations, give-ups, attempts per layer, leaf calls, latencies, the server, clustering. */
function putStackMetrics(out: Record<string, number>, r: SimulationResults): void {
  putAll(out, OPERATIONS, r.operations);
  putAll(out, GIVE_UPS, r.giveUps);
  for (const l of r.attempts) {
    const [first, retries] = ATTEMPTS.get(l.layer) as [string, string];
    put(out, first, l.first);
    put(out, retries, l.retries);
  }
  put(out, 'leafCalls', r.leafCalls);
  put(out, 'writes', r.writes);
  put(out, 'reads', r.reads);
  put(out, 'amplification', r.amplification);
  putAll(out, LATENCY, r.latencyMs);
  putAll(out, OPERATION_MS, r.operationMs);
  put(out, 'completionTimeMs', r.completionTimeMs);
  put(out, 'goodputPerSec', r.goodputPerSec);
  putAll(out, SERVER, r.server);
  for (const c of r.clustering) {
    const [peakToMean, dispersionIndex, maxBin] = CLUSTERING.get(c.binMs) as [string, string, string];
    put(out, peakToMean, c.peakToMean);
    put(out, dispersionIndex, c.dispersionIndex);
    put(out, maxBin, c.maxBin);
  }
}

/** A pool's backends: crashes and ejections in all, crashes and served per cluster, the most down at once. */
function putFleet(out: Record<string, number>, backends: NonNullable<SimulationResults['backends']>, down: readonly number[]): void {
  const byCluster = new Map<string, { crashes: number; ejections: number; served: number }>();
  for (const b of backends) {
    const c = byCluster.get(b.cluster) ?? { crashes: 0, ejections: 0, served: 0 };
    c.crashes += b.crashes;
    c.ejections += b.ejections;
    c.served += b.served;
    byCluster.set(b.cluster, c);
  }
  put(out, 'fleet.crashes', backends.reduce((n, b) => n + b.crashes, 0));
  put(out, 'fleet.ejections', backends.reduce((n, b) => n + b.ejections, 0));
  for (const [name, c] of byCluster) {
    const [crashes, served] = CLUSTER_FLEET.get(name) as [string, string];
    put(out, crashes, c.crashes);
    put(out, served, c.served);
  }
  put(out, 'fleet.maxDown', down.length > 0 ? Math.max(...down) : 0);
}

/** Each metric window's figures, and its edges' calls. */
function putWindows(out: Record<string, number>, windows: NonNullable<SimulationResults['windows']>): void {
  for (const w of windows) {
    put(out, `windows.${w.name}.amplification`, w.amplification);
    put(out, `windows.${w.name}.successRate`, w.successRate);
    put(out, `windows.${w.name}.goodputPerSec`, w.goodputPerSec);
    put(out, `windows.${w.name}.recovered`, w.recovered ? 1 : 0);
    put(out, `windows.${w.name}.recoveryMs`, w.recoveryMs);
    for (const e of w.edges ?? []) {
      const [calls, retries, amplification] = WINDOW_EDGES.get(`${w.name}.edges.${e.caller}->${e.callee}`) as [string, string, string];
      put(out, calls, e.calls);
      put(out, retries, e.retries);
      put(out, amplification, e.amplification);
    }
  }
}

/** A graph's edges: calls, retries, amplification, a full bulkhead, and each workload's share. */
function putEdges(out: Record<string, number>, edges: NonNullable<SimulationResults['edges']>): void {
  for (const e of edges) {
    const [calls, retries, ownRetries, amplification] = EDGES.get(`${e.caller}->${e.callee}`) as [string, string, string, string];
    put(out, calls, e.calls);
    put(out, retries, e.retries);
    put(out, ownRetries, e.ownRetries);
    put(out, amplification, e.amplification);
    if (e.bulkheadFull !== undefined) put(out, `edges.${e.caller}->${e.callee}.bulkheadFull`, e.bulkheadFull);
    for (const [w, c] of Object.entries(e.workloads ?? {})) {
      const at = `edges.${e.caller}->${e.callee}.workloads.${w}`;
      put(out, `${at}.calls`, c.calls);
      put(out, `${at}.retries`, c.retries);
      put(out, `${at}.ownRetries`, c.ownRetries);
      put(out, `${at}.amplification`, c.amplification);
    }
  }
}

/** Each named workload's operations, give-ups, leaf calls, latencies, goodput and success rate. */
function putWorkloads(out: Record<string, number>, workloads: NonNullable<SimulationResults['workloads']>): void {
  for (const w of workloads) {
    const at = `workloads.${w.workload}`;
    for (const [k, v] of Object.entries(w.operations)) put(out, `${at}.operations.${k}`, v);
    for (const [k, v] of Object.entries(w.giveUps)) put(out, `${at}.giveUps.${k}`, v);
    put(out, `${at}.leafCalls`, w.leafCalls);
    put(out, `${at}.amplification`, w.amplification);
    for (const [k, v] of Object.entries(w.latencyMs)) put(out, `${at}.latencyMs.${k}`, v);
    put(out, `${at}.goodputPerSec`, w.goodputPerSec);
    put(out, `${at}.successRate`, w.operations.offered > 0 ? w.operations.succeeded / w.operations.offered : undefined);
  }
}
