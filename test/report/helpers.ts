import type { Scenario } from '../../src/model/scenario.js';
import type { ReportCell, ReportMetricStats, ReportRunInfo, ReportSummary } from '../../src/report/index.js';
import { compileSpec, type VlSpec } from '../../src/report/index.js';
import { buildReportModel, type ReportModel } from '../../src/report/reportModel.js';
import { metricStats } from '../../src/sweep/aggregate.js';

/** Metric statistics: a mean, or [mean, ci low, ci high] (n = 5). */
export function stats(v: number | [number, number, number], n = 5): ReportMetricStats {
  const [mean, lo, hi] = typeof v === 'number' ? [v, v, v] : v;
  return { n, mean, sd: (hi - lo) / 4, ci95: [lo, hi] };
}

/** A scenario with the fields reports read. */
export function scenario(over: Partial<{ workload: unknown; stack: unknown; leaf: unknown }> = {}): Scenario {
  return {
    workload: over.workload ?? { kind: 'burst', clients: 10, startMs: 0, method: 'GET', permanentErrorFraction: 0 },
    stack: over.stack ?? [{ name: 'client', instances: 1, policy: {} }],
    leaf: over.leaf ?? { kind: 'server', concurrency: 1, queueLimit: 'unlimited', discipline: 'fifo', serviceMs: 1, dropExpired: false, capacity: [], faults: [] },
    network: { hopMs: 0 },
    cancellation: false,
    warmupMs: 0,
    horizonMs: 3_600_000,
    maxEvents: 1e8,
    maxInFlight: 1000,
    metrics: { timeSeriesBinMs: 100, clusteringBinMs: [1, 10] },
  } as unknown as Scenario;
}

/** A time series of `bins` bins of `binMs`, arrivals from the given functions of the bin index. */
export function series(bins: number, binMs: number, first: (i: number) => number = () => 1, retry: (i: number) => number = () => 0) {
  const idx = Array.from({ length: bins }, (_, i) => i);
  return {
    binMs,
    tMs: idx.map((i) => i * binMs),
    arrivalsFirst: idx.map(first),
    arrivalsRetry: idx.map(retry),
    successes: idx.map(first),
    failures: idx.map(() => 0),
    goodputPerSec: idx.map((i) => (first(i) * 1000) / binMs),
    queue: idx.map((i) => i % 3),
    inFlight: idx.map((i) => (i % 4) + 1),
    busy: idx.map(() => 1),
  };
}

/** A summary cell. */
export function cell(opts: {
  part?: string;
  variant?: string;
  params?: Record<string, unknown>;
  metrics?: Record<string, number | [number, number, number]>;
  scenario?: Scenario | null;
  series?: ReturnType<typeof series> | null;
  n?: number;
}): ReportCell {
  const part = opts.part ?? 'main';
  const variant = opts.variant ?? 'default';
  const params = opts.params ?? {};
  return {
    key: JSON.stringify({ params, part, variant }),
    part,
    variant,
    params,
    state: 'ok',
    replications: opts.n ?? 5,
    errors: [],
    metrics: Object.fromEntries(Object.entries(opts.metrics ?? {}).map(([k, v]) => [k, stats(v, opts.n ?? 5)])),
    scenario: opts.scenario === undefined ? scenario() : opts.scenario,
    timeSeries: { typical: opts.series === undefined ? series(20, 100) : opts.series, mean: null },
  };
}

/**
 * A cell whose metrics are computed, as a sweep computes them, from per-replication values (common
 * random numbers: replications 0..n-1, n the longest list), with those values as its samples.
 */
export function sampledCell(variant: string, params: Record<string, unknown>, values: Record<string, number[]>, sc: unknown = scenario({ workload: { kind: 'burst', clients: 10 } })): ReportCell {
  const n = Math.max(...Object.values(values).map((v) => v.length));
  return {
    key: JSON.stringify({ params, part: 'main', variant }),
    part: 'main',
    variant,
    params,
    state: 'ok',
    replications: n,
    errors: [],
    metrics: Object.fromEntries(Object.entries(values).map(([k, v]) => [k, metricStats(v)])),
    scenario: sc as ReportCell['scenario'],
    timeSeries: { typical: null, mean: null },
    samples: { replications: Array.from({ length: n }, (_, i) => i), values },
  };
}

/** The report model of cells, from an experiment file's `source`. */
export function reportModelOf(cells: ReportCell[], source: unknown): ReportModel {
  return buildReportModel(summary(cells), runInfo(source));
}

export function summary(cells: ReportCell[], name = 'exp', description = 'An experiment.'): ReportSummary {
  return { experiment: name, description, seed: 42, version: '0.1.0', cells };
}

export function runInfo(source: unknown = null): ReportRunInfo {
  return { source, quick: true, set: [], date: '2025-01-02T03:04:05.000Z', runTimeMs: 1234, reportVersion: '0.1.0' };
}

/** Compile with vega-lite and return what it logged. */
export function compileLog(spec: VlSpec): string[] {
  const { log } = compileSpec(spec);
  return [...log.warnings, ...log.errors];
}

/** Every object in a JSON tree (for finding encodings wherever a spec nests them). */
export function walk(value: unknown, visit: (o: Record<string, unknown>) => void): void {
  if (Array.isArray(value)) value.forEach((v) => walk(v, visit));
  else if (value !== null && typeof value === 'object') {
    visit(value as Record<string, unknown>);
    for (const v of Object.values(value)) walk(v, visit);
  }
}

/** Every `encoding` object of a spec, at any depth. */
export function encodings(spec: unknown): Array<Record<string, Record<string, unknown>>> {
  const out: Array<Record<string, Record<string, unknown>>> = [];
  walk(spec, (o) => {
    if (o.encoding && typeof o.encoding === 'object') out.push(o.encoding as Record<string, Record<string, unknown>>);
  });
  return out;
}

/** A standard OCC-style sweep: 3 variants x clients [10, 20, 40, 1000]. */
export function sweepCells(): ReportCell[] {
  const out: ReportCell[] = [];
  const occ = scenario({ leaf: { kind: 'occ' } });
  for (const clients of [10, 20, 40, 1000]) {
    for (const [variant, k] of [['none', 3], ['exponential', 2], ['full-jitter', 1]] as const) {
      out.push(
        cell({
          variant,
          params: { 'workload.clients': clients },
          scenario: occ,
          metrics: {
            writes: [clients * k * 2, clients * k * 1.8, clients * k * 2.2],
            completionTimeMs: [clients * (4 - k) * 10, clients * (4 - k) * 9, clients * (4 - k) * 11],
            'operations.offered': clients,
            'operations.failed': 0,
            amplification: k * 2,
            leafCalls: clients * k * 4,
            'attempts.client.first': clients,
            'attempts.client.retries': clients * (k * 2 - 1),
            'clustering.1ms.peakToMean': 10 * k,
            'giveUps.success': clients,
            'giveUps.deadline': 0,
          },
        }),
      );
    }
  }
  return out;
}
