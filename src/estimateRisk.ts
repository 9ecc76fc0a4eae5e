import { expandExperiment, parseScenario, problemMessage, ValidationError, type ExpandOptions } from './experiment/index.js';
import { riskSchema, type RiskSection } from './experiment/riskSchema.js';
import { zodProblems } from './policy/schema/zodProblems.js';
import { estimateCellRisk, riskProblems, type CellRisk } from './riskModel/index.js';
import { riskCellSeed } from './sweep/riskCell.js';
import { planRiskGaps } from './sweep/riskSweep.js';

/** Options of {@link estimateRisk}. */
export interface EstimateRiskOptions {
  /** Master seed of the estimate (default 1): the same seed gives the same estimate (all but the measured CPU time). */
  seed?: number;
  /** Polled between trajectories: true stops the estimate (it throws). */
  shouldStop?: () => boolean;
}

/** The `risk` section validated (its rules across fields included), or a ValidationError naming each field by its path from `risk`. */
export function parseRisk(input: unknown): RiskSection {
  const parsed = riskSchema.safeParse(input, { reportInput: true });
  if (!parsed.success) throw new ValidationError(zodProblems(parsed.error.issues, ['risk']).map((p) => problemMessage(p)));
  return parsed.data;
}

/**
 * P(collapse within the scenario's horizonMs) for one scenario, as one cell of `retrystorm risk`
 * estimates it: `scenario` is the `scenario` object of an experiment file and `risk` its `risk`
 * section (docs/risk.md). Deterministic for a seed. An invalid scenario or section, or a probe the
 * scenario cannot give (an unknown service...), throws a ValidationError listing every problem by
 * its dotted path.
 */
export function estimateRisk(scenario: unknown, risk: unknown, options: EstimateRiskOptions = {}): CellRisk {
  const resolved = parseScenario(scenario, ['scenario']);
  const section = parseRisk(risk);
  const problems = riskProblems(resolved, section);
  if (problems.length > 0) throw new ValidationError(problems);
  return estimateCellRisk(resolved, section, options.seed ?? 1, options.shouldStop ? { shouldStop: options.shouldStop } : {});
}

/** One cell of an experiment's risk estimates: where it sits in the plan, its seed and its estimate. */
export interface CellRiskEstimate {
  key: string;
  part: string;
  variant: string;
  params: Record<string, unknown>;
  seed: number;
  risk: CellRisk;
}

/**
 * Every cell of an experiment file's plan estimated in this thread, in cell-key order, with the
 * seeds `retrystorm risk` gives them (each cell's replication-0 seed), so the numbers are the
 * command's. `experiment` is the file's object (with its `risk` section); `options` applies quick
 * mode and `--set` overrides as the command does. Problems throw a ValidationError.
 */
export function estimateExperimentRisk(experiment: Record<string, unknown>, options: ExpandOptions = { quick: false }): CellRiskEstimate[] {
  const expanded = expandExperiment({ root: experiment }, options);
  if (!expanded.ok) throw new ValidationError(expanded.errors);
  const { plan } = expanded;
  if (plan.parts.every((p) => p.risk === undefined)) throw new ValidationError(['risk is required (what the estimate is of: docs/risk.md)']);
  const gaps = planRiskGaps(plan);
  if (gaps.length > 0) throw new ValidationError(gaps);
  const cells = plan.parts.flatMap((p) => p.cells.map((cell) => ({ cell, risk: p.risk as RiskSection }))).sort((a, b) => (a.cell.key < b.cell.key ? -1 : a.cell.key > b.cell.key ? 1 : 0));
  const problems = [...new Set(cells.flatMap(({ cell, risk }) => riskProblems(cell.scenario, risk)))];
  if (problems.length > 0) throw new ValidationError(problems);
  return cells.map(({ cell: c, risk }) => {
    const seed = riskCellSeed(plan.seed, c);
    return { key: c.key, part: c.part, variant: c.variant, params: c.params, seed, risk: estimateCellRisk(c.scenario, risk, seed) };
  });
}
