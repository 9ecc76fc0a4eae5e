// The validate command: an experiment file's parts, cells and replications, the calls per operation
// on each edge of a graph if every call failed, and the estimates of work, output and memory.
import { relative } from 'node:path';
import { isLayerSelector, patchedRoot, resolvePathKey, type ExperimentPlan, type SelectorUse } from '../experiment/index.js';
import { callsIfEveryCallFails } from '../model/graph/failureAmplification.js';
import { estimateWork } from '../sweep/estimateWork.js';
import { formatBytes } from '../sweep/resourceLimits.js';
import { riskMemoryCause, type RiskLimitFindings } from '../sweep/riskMemory.js';
import { prepareTune } from '../tune/prepareTune.js';
import { UsageError, type CliIO } from './io.js';
import { planLimits, riskPlanLimits } from './limits.js';
import { loadPlan, printWarnings } from './loadPlan.js';
import { hasTuneSection } from './tuneCommand.js';
import { hasRiskSection, planRiskBriefs, planRiskProblems } from './riskCommand.js';

/** Counts from here on print as a mantissa and a power of ten (`3.2e51`): G (10^9) is the largest prefix used. */
const SCIENTIFIC_FROM = 1e15;

/** A count for people: `12k`, `3.4M`, `5.6G`, `3.2e51`. */
function fmtCount(n: number): string {
  if (n >= SCIENTIFIC_FROM) return n.toExponential(1).replace('e+', 'e');
  if (n >= 1e9) return `${(n / 1e9).toFixed(1)}G`;
  if (n >= 1e6) return `${(n / 1e6).toFixed(1)}M`;
  if (n >= 1e4) return `${(n / 1e3).toFixed(0)}k`;
  return String(Math.round(n));
}

/** Calls per operation: a count, with two decimals when it is not whole (an entry mix), or unbounded. */
function fmtCalls(n: number): string {
  if (!Number.isFinite(n)) return 'unbounded';
  return Number.isInteger(n) || n >= 1e4 ? fmtCount(n) : n.toFixed(2);
}

/**
 * Validate the experiment file at `path` (its `tune` section too, as `tune` checks it) and print what
 * it would run, with the number of layers each layer selector matched (a UsageError on any problem
 * or refused limit).
 */
export function validateCommand(io: CliIO, path: string, opts: { quick: boolean; set: string[]; workers?: number; force: boolean; allowImportsOutside?: boolean; memoryLimit?: number }): void {
  const loaded = loadPlan(path, opts);
  const { plan, warnings, experiment, set } = loaded;
  const selectors: SelectorUse[] = [...loaded.selectors];
  // A file with a search is checked as `tune` checks it (its metrics, parts, windows, bounds...).
  if (hasTuneSection(experiment.root)) {
    const prepared = prepareTune(patchedRoot(experiment.root, { quick: opts.quick, set }));
    if (!prepared.ok) throw new UsageError(prepared.errors.map((e) => `${path}: ${e}`));
    for (const { path: key } of prepared.problem.space.filter((d) => isLayerSelector(d.path))) {
      for (const part of prepared.problem.parts) {
        const resolved = resolvePathKey(part.scenario, key);
        const where = prepared.problem.hasParts ? `tune.space, part ${part.name}` : 'tune.space';
        if (resolved.ok) selectors.push({ where, key, layers: resolved.layers });
      }
    }
  }
  const limitOptions = { force: opts.force, workers: opts.workers, memoryBytes: io.memoryBytes, memoryLimitBytes: opts.memoryLimit };
  const shown = relative(io.cwd, path) || path;
  // A file with a risk section is estimated by `risk`, not run: its problems, limits and estimates are risk's.
  const risky = hasRiskSection(experiment.root);
  let limits: { warnings: string[]; refusals: string[] };
  let totals: string[];
  if (risky) {
    const riskProblems = planRiskProblems(path, plan);
    if (riskProblems.length > 0) throw new UsageError(riskProblems);
    const checked = riskPlanLimits(shown, plan, limitOptions);
    limits = checked;
    totals = riskTotals(plan, checked.findings);
  } else {
    const checked = planLimits(shown, plan, limitOptions);
    limits = checked;
    totals = runTotals(plan, checked.findings);
  }
  if (limits.refusals.length > 0) throw new UsageError(limits.refusals);
  printWarnings(io, [...warnings, ...limits.warnings]);
  const lines = [`${plan.name}: valid`];
  for (const p of plan.parts) {
    lines.push(`  part ${p.name}: ${p.cells.length} cells${risky ? '' : ` x ${p.replications} replications`}`);
    lines.push(...graphLines(p.cells[0]?.scenario));
  }
  if (risky) for (const brief of planRiskBriefs(plan)) lines.push(`  ${brief}`);
  for (const s of selectors) lines.push(`  ${s.key} (${s.where}): ${s.layers.length} ${s.layers.length === 1 ? 'layer' : 'layers'}`);
  lines.push(...totals);
  io.stdout(lines.join('\n') + '\n');
}

type PlanScenario = ExperimentPlan['parts'][number]['cells'][number]['scenario'];

/** A part's graph, if it has one: the calls per operation on each edge if every call failed (its first cell's). */
function graphLines(first: PlanScenario | undefined): string[] {
  const graph = first?.graph;
  if (first === undefined || graph === undefined) return [];
  const format = (edges: ReturnType<typeof callsIfEveryCallFails>) => edges.map((e) => `${e.caller} -> ${e.callee} ${fmtCalls(e.callsPerOperation)}`).join(', ');
  if (graph.workloads === undefined) return [`    calls per operation if every call failed (its first cell): ${format(callsIfEveryCallFails(graph, first.stack))}`];
  return graph.workloads.map((w) => `    calls per operation of ${w.name} if every call failed (its first cell): ${format(callsIfEveryCallFails({ ...graph, entries: w.entries }, w.stack, w.name))}`);
}

/** What `run` would do with the plan: its runs, their work, output and memory. */
function runTotals(plan: ExperimentPlan, findings: ReturnType<typeof planLimits>['findings']): string[] {
  let runs = 0;
  let ops = 0;
  let calls = 0;
  for (const p of plan.parts) {
    runs += p.cells.length * p.replications;
    for (const c of p.cells) {
      const w = estimateWork(c.scenario);
      ops += w.operations * p.replications;
      calls += w.maxLeafCalls * p.replications;
    }
  }
  const capped = findings.memory.graphCapped ? ` (at most: a run whose queues keep growing stops at its share of the ${formatBytes(findings.memoryLimitBytes)} memory limit)` : '';
  return [
    `  ${runs} runs in all`,
    `  work: about ${fmtCount(ops)} operations, at most ${Number.isFinite(calls) ? fmtCount(calls) : 'unbounded'} leaf calls (if every attempt failed)`,
    `  output: about ${formatBytes(findings.output.bytes)} of results; memory: about ${formatBytes(findings.memory.bytes)} at peak${capped}`,
  ];
}

/**
 * What `risk` would do with the plan: its cells, the size of one run (the number of runs a cell
 * takes depends on its estimate) and risk's memory estimate (src/sweep/riskMemory.ts).
 */
function riskTotals(plan: ExperimentPlan, findings: RiskLimitFindings): string[] {
  let cells = 0;
  let lo = Infinity;
  let hi = 0;
  for (const p of plan.parts) {
    cells += p.cells.length;
    for (const c of p.cells) {
      const w = estimateWork(c.scenario).operations;
      lo = Math.min(lo, w);
      hi = Math.max(hi, w);
    }
  }
  const size = fmtCount(lo) === fmtCount(hi) ? fmtCount(lo) : `${fmtCount(lo)} to ${fmtCount(hi)}`;
  return [
    `  ${cells} cells to estimate; how many runs each takes depends on its estimate`,
    `  work: a run lasts at most its cell's horizon, about ${size} operations (most runs stop sooner)`,
    `  memory: about ${formatBytes(findings.memory.bytes)} at peak: ${riskMemoryCause(findings.memory, plan.parts.length > 1)}`,
  ];
}
