import { FEW_RUNS, restsOnFewRuns } from '../metrics/metricBounds.js';
import { backoffIsRandom } from '../policy/backoff.js';
import { backoffLegend, budgetLabel, describeBackoff } from '../policy/describePolicy.js';
import type { PolicySpec } from '../policy/types.js';
import type { CheckReport, LayerReport } from './checkStack.js';
import { STORM_LIMITS, stormGoodputMeaning, type StormLimit, type StormReport } from './simulateStorm.js';
import { fmtMs, fmtNum, fmtPct, fmtProduct, fmtX, table } from './text.js';
import { ANSWER_CLASSES, FAILURE_CLASS_LABELS } from './worstCase.js';

const WIDTH = 100;

/** Word-wrap `text` to WIDTH columns, every line after the first indented by `indent`. */
function wrap(text: string, indent: string, first = ''): string {
  const words = text.split(/\s+/).filter((w) => w !== '');
  const lines: string[] = [];
  let line = first;
  for (const w of words) {
    const prefix = lines.length === 0 ? '' : indent;
    if (line.length > prefix.length && (prefix + line + ' ' + w).length > WIDTH && line.trim() !== '') {
      lines.push(line);
      line = w;
    } else {
      line = line === '' || line.endsWith(' ') ? line + w : `${line} ${w}`;
    }
  }
  if (line !== '') lines.push(line);
  return lines.map((l, i) => (i === 0 ? l : indent + l)).join('\n');
}

/** A backoff's text and a budget's label: the one table of each kind (src/policy/describePolicy.ts). */
export { describeBackoff, budgetLabel as describeBudget };

function budgetsOf(p: PolicySpec): string {
  const parts = (p.budget ?? []).map(budgetLabel);
  if (p.admission !== undefined) parts.push(p.admission.kind);
  return parts.length > 0 ? parts.join(' + ') : 'none';
}

function attemptsOf(p: PolicySpec): string {
  if (p.hedging !== undefined) return `${p.hedging.maxAttempts} hedged`;
  return p.maxAttempts === 'unlimited' ? 'unlimited' : String(p.maxAttempts);
}

function layerRows(layers: LayerReport[]): string[][] {
  return layers.map((l) => {
    const p = l.policy;
    const time = [p.totalTimeoutMs !== undefined ? `total ${fmtMs(p.totalTimeoutMs)}` : '', p.maxElapsedMs !== undefined ? `elapsed ${fmtMs(p.maxElapsedMs)}` : '']
      .filter((s) => s !== '')
      .join(', ');
    const retries = l.retries.length === 0 ? 'nothing' : l.retries.length === ANSWER_CLASSES.length ? 'every class' : l.retries.join(' ');
    return [
      l.name,
      attemptsOf(p),
      retries,
      p.perAttemptTimeoutMs !== undefined ? fmtMs(p.perAttemptTimeoutMs) : 'none',
      time === '' ? 'none' : time,
      p.deadlineMode + (p.tickMs > 0 ? `, tick ${fmtMs(p.tickMs)}` : ''),
      p.hedging !== undefined ? `hedging every ${fmtMs(p.hedging.hedgingDelayMs)}` : describeBackoff(p.backoff),
      p.retryAfter,
      p.idempotency,
      budgetsOf(p),
    ];
  });
}

function waitsText(l: LayerReport): string {
  if (l.policy.hedging !== undefined) return `hedges every ${fmtMs(l.policy.hedging.hedgingDelayMs)}`;
  if (l.firstWaits.length === 0) return 'no retries';
  const random = backoffIsRandom(l.policy.backoff.kind, l.policy.backoff);
  const parts = l.firstWaits.map((w) => (random && w.maxMs !== w.minMs ? `${fmtMs(w.minMs)}..${fmtMs(w.maxMs)}` : fmtMs(w.maxMs)));
  const more = l.policy.maxAttempts === 'unlimited' || (l.policy.maxAttempts as number) - 1 > l.firstWaits.length ? ', ...' : '';
  const tick = l.policy.tickMs > 0 ? ` (wake-ups rounded up to ${fmtMs(l.policy.tickMs)})` : '';
  return `${parts.join(', ')}${more}${tick}`;
}

/** The index of the backoff column in the layers' table ({@link layerRows}). */
const BACKOFF_COLUMN = 6;

/** The readable report of `retrystorm check` for one stack. */
export function formatCheckReport(r: CheckReport): string {
  const out: string[] = [];
  const deadline = r.deadlineMs === null ? 'no deadline' : `deadline ${fmtMs(r.deadlineMs)}`;
  out.push(`${r.source}: ${r.name} (${r.layers.length} layer${r.layers.length === 1 ? '' : 's'} top to bottom, ${r.method}, ${deadline})`);
  out.push('');
  const layerTable = layerRows(r.layers);
  out.push(table(layerTable, ['layer', 'attempts', 'retries', 'per-try', 'time limit', 'deadline', 'backoff', 'Retry-After', 'idempotency', 'budget'], [1]));
  const legend = backoffLegend(layerTable.map((row) => row[BACKOFF_COLUMN] ?? ''));
  if (legend !== '') out.push(wrap(legend, '  '));
  out.push('');
  for (const l of r.layers) {
    out.push(wrap(l.origin, '    ', `${l.name}: `));
    for (const n of l.notes) out.push(wrap(n, '    ', '  - '));
  }

  out.push('');
  out.push('Worst case of one operation when the leaf fails every attempt (budgets do not change it):');
  const rows = r.worstCase
    .filter((w) => w.failureClass !== 'conflict' || w.retryingLayers.length > 0)
    .map((w) => [
      w.failureClass,
      fmtNum(w.leafCalls),
      fmtProduct(w.attemptsPerCall),
      w.attemptsPerLayer.map(fmtNum).join(', '),
      Number.isNaN(w.lifetimeMs) ? '?' : fmtMs(w.lifetimeMs),
      FAILURE_CLASS_LABELS[w.failureClass],
    ]);
  out.push(table(rows, ['failure', 'leaf calls', 'attempts per call', 'attempts per layer', 'lifetime', ''], [1]));
  out.push(
    wrap(
      'leaf calls: the shortest waits, so the most attempts fit before the deadlines (A^L when nothing cuts them short); lifetime: every timeout plus the longest waits, bounded by the deadlines; timeouts do not cancel the work below, whose calls are counted.',
      '  ',
    ),
  );

  if (r.graph !== undefined && r.graph.length > 0) {
    out.push('');
    out.push('Calls on each edge of the service graph per entry operation when every leaf service fails every request (worst case):');
    const classes = r.graph;
    const first = classes[0] as (typeof classes)[number];
    const grows = first.edges.map((e, i) => [`${e.caller} -> ${e.callee}`, ...classes.map((g) => fmtNum(g.edges[i]?.callsPerOperation ?? NaN))]);
    grows.push(['entry answers', ...classes.map((g) => g.entryAnswer)]);
    out.push(table(grows, ['edge', ...classes.map((g) => g.failureClass)], classes.map((_, i) => i + 1)));
    out.push(
      wrap(
        'Each call stack retries what its callee answers: a leaf service the failure itself, a handler what its deciding call ended with, mapped upward (a 404 below is a 500 above, a 429 a 503); every call of a step runs to its end; the stacks below the entry are counted without the deadlines propagated to them, so their counts are upper bounds. Each call stack is checked on its own below.',
        '  ',
      ),
    );
  }

  for (const e of r.expected) {
    out.push('');
    out.push(`Expected leaf calls per operation when each leaf call fails with ${e.failureClass} with probability ${fmtPct(e.failureRate)} (closed form):`);
    const erows = e.withoutBudgets.layers.map((l, i) => {
      const b = e.withBudgets.layers[i];
      return [l.layer, fmtPct(l.failureBelow), fmtNum(l.attemptsPerCall), b === undefined ? '' : fmtNum(b.attemptsPerCall), fmtPct(l.failureOut)];
    });
    erows.push(['stack', '', fmtX(e.withoutBudgets.multiple), fmtX(e.withBudgets.multiple), fmtPct(e.withoutBudgets.operationFailure)]);
    out.push(table(erows, ['layer', 'fails below', 'attempts/call', 'with budgets', 'fails above'], [1, 2, 3, 4]));
    for (const l of e.withBudgets.layers) for (const n of l.budgetNotes) out.push(wrap(n, '    ', `  ${l.layer}: `));
  }
  if (r.layers.some((l) => l.policy.budget !== undefined && l.policy.budget.length > 0)) {
    out.push(wrap('Budgets are per layer instance and act over many calls: they bound the fleet\'s load in a long failure, not the worst case of one operation.', '  '));
  }

  out.push('');
  out.push('First waits (the shortest..longest draw; a Retry-After can make them longer):');
  for (const l of r.layers) out.push(wrap(waitsText(l), '    ', `  ${l.name}: `));

  out.push('');
  const c = r.counts;
  out.push(`Findings: ${c.error} error${c.error === 1 ? '' : 's'}, ${c.warning} warning${c.warning === 1 ? '' : 's'}, ${c.info} info`);
  for (const f of r.findings) {
    out.push(`${f.severity.padEnd(7)} ${f.code}  ${f.layer}: ${f.title}`);
    out.push(wrap(f.risk, '               ', '               '));
    out.push(wrap(`fix: ${f.fix}`, '               ', '               '));
  }
  return out.join('\n');
}

function ci(m: { mean: number; ci95: [number, number]; n: number }, f: (x: number) => string): string {
  if (m.n <= 1 || !Number.isFinite(m.ci95[0])) return f(m.mean);
  return `${f(m.mean)} [${f(m.ci95[0])}, ${f(m.ci95[1])}]`;
}

/** Which limit stopped a storm run, and what usually makes a run reach it. */
function stormLimitText(limit: StormLimit, l: StormReport['limits']): [string, string] {
  switch (limit) {
    case 'horizon':
      return [`the horizon (${fmtMs(l.horizonMs)})`, 'a leaf that never answers and no timeout'];
    case 'event-cap':
      return [`the event cap (${fmtNum(l.maxEvents)} events)`, 'more retries than one run can follow'];
    case 'in-flight-cap':
      return [`the in-flight cap (${fmtNum(l.maxInFlight)} operations)`, 'operations pile up faster than they end'];
    default: {
      const never: never = limit;
      throw new Error(`unknown limit ${String(never)}`);
    }
  }
}

/** The `--simulate` table: the storm's amplification and goodput beside the closed form. */
export function formatStormReport(s: StormReport): string {
  const out: string[] = [];
  out.push(
    `Standard storm (${s.replications} runs per rate, seeds ${s.seed}..${s.seed + s.replications - 1}): ${s.ratePerSec} operations/s for ${fmtMs(s.durationMs)} from ${s.clients} clients, a leaf of unlimited capacity failing with ${s.failureClass}; mean [95% interval]:`,
  );
  const rows = s.runs.map((run) => [
    fmtPct(run.failureRate),
    // A run stopped at a limit had not made all its calls yet: its multiple is a lower bound.
    (run.truncated > 0 ? '>= ' : '') + ci(run.amplification, fmtX),
    run.closedForm.worstCase === null ? '' : fmtX(run.closedForm.worstCase),
    fmtX(run.closedForm.withoutBudgets),
    fmtX(run.closedForm.withBudgets),
    ci(run.goodputPerSec, (x) => `${fmtNum(x)}/s`),
    ci(run.successFraction, fmtPct),
  ]);
  out.push(table(rows, ['failing', 'simulated', 'worst case', 'closed form', 'with budgets', 'goodput', 'succeeded'], [1, 2, 3, 4, 5, 6]));
  out.push(`  ${stormGoodputMeaning(s.durationMs)}.`);
  if (restsOnFewRuns(s.replications)) out.push(`  The intervals rest on ${s.replications} runs per rate, fewer than ${FEW_RUNS} (--replications): read them as rough.`);
  for (const limit of STORM_LIMITS) {
    const n = s.runs.reduce((a, r) => a + r.truncatedBy[limit], 0);
    if (n > 0) {
      const [where, why] = stormLimitText(limit, s.limits);
      out.push(`  ${n} run${n === 1 ? '' : 's'} stopped at ${where} with operations unfinished (${why}); where marked >=, the simulated multiple is a lower bound.`);
    }
  }
  return out.join('\n');
}
