import { metricMean } from './reportModel.js';
import type { ReportCell } from './types.js';

/**
 * The success rate under which an open loop's runs count as collapsed: fewer than half of the
 * operations offered (over the span judged, {@link cellHealth}) succeed, so the goodput is under half
 * the demand.
 */
export const COLLAPSE_SUCCESS_RATE = 0.5;

/** One metric window of a resolved scenario (`metrics.windows`), as the report reads it. */
interface Window {
  name: string;
  fromMs: number;
  toMs: number;
}

/** How a cell's runs fared over the span a headline judges them on ({@link cellHealth}). */
export interface CellHealth {
  /** `collapsed`: no run recovered, or (an open loop without windows) under {@link COLLAPSE_SUCCESS_RATE} succeeded; `unrecovered`: some runs did not recover; else `healthy`. */
  state: 'collapsed' | 'unrecovered' | 'healthy';
  /** The span judged: the metric window that ends last, or null for the whole run. */
  window: Window | null;
  /** The mean success rate over the span (null when not measured). */
  successRate: number | null;
  /** The mean goodput over the span, operations/s (null when not measured). */
  goodputPerSec: number | null;
  /** The demand over the span, operations/s, when the scenario's open-loop rate is one number there; else null. */
  demandPerSec: number | null;
  /** The replications that recovered by the end of the window, of those measured (null without a window). */
  recovered: { runs: number; of: number } | null;
}

/** The metric windows a cell's scenario declares and its metrics measured (with `recovered`). */
function measuredWindows(cell: ReportCell): Window[] {
  const windows = (cell.scenario as { metrics?: { windows?: unknown } } | null)?.metrics?.windows;
  if (!Array.isArray(windows)) return [];
  return windows.filter(
    (w): w is Window =>
      w !== null &&
      typeof w === 'object' &&
      typeof (w as Window).name === 'string' &&
      typeof (w as Window).fromMs === 'number' &&
      typeof (w as Window).toMs === 'number' &&
      metricMean(cell, `windows.${(w as Window).name}.recovered`) !== null,
  );
}

type Rate = { kind?: unknown; ratePerSec?: unknown; toRatePerSec?: unknown; spikeRatePerSec?: unknown; atMs?: unknown; durationMs?: unknown; points?: unknown };

/**
 * The rate of an open-loop schedule over [fromMs, toMs) when it is one number there (a steady rate,
 * a step or spike the span does not cross, a ramp the span lies wholly before or after); else null.
 */
export function constantRatePerSec(rate: unknown, fromMs: number, toMs: number): number | null {
  if (typeof rate === 'number') return rate;
  if (rate === null || typeof rate !== 'object') return null;
  const r = rate as Rate;
  const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
  const at = num(r.atMs);
  if (r.kind === 'steady') return num(r.ratePerSec);
  if (r.kind === 'step' && at !== null) return toMs <= at ? num(r.ratePerSec) : fromMs >= at ? num(r.toRatePerSec) : null;
  if (r.kind === 'spike' && at !== null) {
    const end = at + (num(r.durationMs) ?? Infinity);
    if (toMs <= at || fromMs >= end) return num(r.ratePerSec);
    return fromMs >= at && toMs <= end ? num(r.spikeRatePerSec) : null;
  }
  if (r.kind === 'ramp' && Array.isArray(r.points) && r.points.length > 0) {
    const points = r.points as Array<{ atMs: number; ratePerSec: number }>;
    const first = points[0] as { atMs: number; ratePerSec: number };
    const last = points[points.length - 1] as { atMs: number; ratePerSec: number };
    if (toMs <= first.atMs) return num(first.ratePerSec);
    if (fromMs >= last.atMs) return num(last.ratePerSec);
  }
  return null;
}

/** A workload as a resolved scenario writes it (the fields the demand reads). */
type WorkloadRate = { kind?: unknown; rate?: unknown } | undefined;

/**
 * The demand of a cell over a span: its open-loop workload's rate, or the sum of a graph's
 * workloads' rates (their goodput is counted together), when each is an open loop whose rate is one
 * number there; else null.
 */
function demandOver(cell: ReportCell, fromMs: number, toMs: number): number | null {
  const sc = cell.scenario as { workload?: WorkloadRate; graph?: { workloads?: Array<{ workload?: WorkloadRate }> } } | null;
  const workloads = sc?.graph?.workloads?.map((w) => w.workload) ?? [sc?.workload];
  let sum = 0;
  for (const w of workloads) {
    const rate = w?.kind === 'open' ? constantRatePerSec(w.rate, fromMs, toMs) : null;
    if (rate === null) return null;
    sum += rate;
  }
  return workloads.length > 0 ? sum : null;
}

/**
 * How a cell's runs fared, the one definition of collapse a report uses. The span judged is the
 * metric window that ends last (the time after a trigger, where a metastable failure shows: Bronson
 * et al., "Metastable Failures in Distributed Systems", HotOS 2021, and Huang et al., "Metastable
 * Failures in the Wild", OSDI 2022, define it as low goodput that persists after the trigger is
 * gone), or the whole run without windows. A run has recovered when its window's `recovered` is 1
 * (its successes over the window's last 30 s reach 90% of the operations offered then): the cell has
 * collapsed when none of its runs recovered, and is unrecovered when some but not all did. Without
 * a window, an open loop (whose demand does not wait for answers) has collapsed when fewer than
 * {@link COLLAPSE_SUCCESS_RATE} of its operations succeeded (goodput under half the demand); a
 * closed loop or a burst, whose demand follows its answers, is not judged on its success rate.
 */
export function cellHealth(cell: ReportCell): CellHealth {
  const window = measuredWindows(cell).sort((a, b) => a.toMs - b.toMs || a.fromMs - b.fromMs).pop() ?? null;
  const at = window ? `windows.${window.name}.` : '';
  const successRate = metricMean(cell, `${at}successRate`);
  const goodputPerSec = metricMean(cell, `${at}goodputPerSec`);
  const workload = (cell.scenario as { workload?: { kind?: unknown; durationMs?: unknown } } | null)?.workload;
  const durationMs = workload?.durationMs;
  const demandPerSec = window ? demandOver(cell, window.fromMs, window.toMs) : typeof durationMs === 'number' ? demandOver(cell, 0, durationMs) : null;
  let recovered: CellHealth['recovered'] = null;
  if (window) {
    const of = cell.metrics[`${at}recovered`]?.n ?? 0;
    recovered = { runs: Math.round((metricMean(cell, `${at}recovered`) ?? 0) * of), of };
  }
  const state =
    recovered !== null
      ? recovered.of > 0 && recovered.runs === 0
        ? 'collapsed'
        : recovered.runs < recovered.of
          ? 'unrecovered'
          : 'healthy'
      : workload?.kind === 'open' && successRate !== null && successRate < COLLAPSE_SUCCESS_RATE
        ? 'collapsed'
        : 'healthy';
  return { state, window, successRate, goodputPerSec, demandPerSec, recovered };
}
