import { WINDOWED_RISK_METRICS, type RiskSection } from '../experiment/riskSchema.js';
import type { Scenario } from '../model/scenario.js';
import { probeProblems, type ProbeSpec } from './probes.js';

/** The relative slack within which a window counts as a whole multiple of the check grid (rounding of decimal times). */
export const WINDOW_MULTIPLE_TOLERANCE = 1e-9;

/** Problems of one probe's window against the check grid `checkEveryMs`, under `path`. */
function windowProblems(spec: ProbeSpec, checkEveryMs: number, path: string): string[] {
  const windowed = WINDOWED_RISK_METRICS.has(spec.metric);
  if (!windowed) {
    return spec.windowMs === undefined ? [] : [`${path}.windowMs: only missRatio, hitRatio, retryShare and goodput are read over a window (got windowMs with ${spec.metric})`];
  }
  if (checkEveryMs === 0) return [`${path}.metric: ${spec.metric} is read over a window, which needs a check grid (risk.checkEveryMs > 0; got 0, after every event)`];
  if (spec.windowMs === undefined) return [];
  const k = spec.windowMs / checkEveryMs;
  if (k < 1 - WINDOW_MULTIPLE_TOLERANCE || Math.abs(k - Math.round(k)) > WINDOW_MULTIPLE_TOLERANCE * Math.max(1, k)) {
    return [`${path}.windowMs must be a whole multiple of risk.checkEveryMs (got ${spec.windowMs} with checkEveryMs ${checkEveryMs})`];
  }
  return [];
}

/**
 * Problems of a risk section against a resolved scenario, each naming the field path (e.g.
 * `risk.importance.service`) and the rule: probes the run cannot read (an unknown service or
 * cache, a metric the scenario's leaf or kind of run does not have), windowed metrics without a
 * check grid, windows that are not whole multiples of the grid. None: `estimateCellRisk` can run it.
 */
export function riskProblems(scenario: Scenario, risk: RiskSection): string[] {
  const out: string[] = [];
  for (const [spec, path] of [
    [risk.importance, 'risk.importance'],
    [risk.collapse, 'risk.collapse'],
  ] as const) {
    out.push(...probeProblems(scenario, spec, path), ...windowProblems(spec, risk.checkEveryMs, path));
  }
  return out;
}
