import { csvCell } from '../sweep/csv.js';
import { chartBoot, CHART_PAGE_STYLE } from './chartPage.js';
import { chartsForScript, escapeHtml, inlineScript } from './escape.js';
import { formatDuration } from '../policy/formatDuration.js';
import { formatNumber, formatValue, shownDurationUnit } from './format.js';
import { isDurationMetric, paramLabel, paramTitle } from './metrics.js';
import { INTEGER_AXIS, logAxis, spansDecades, valueAxis } from './specs/common.js';
import { reportHead, type ReportAssets } from './renderReport.js';

/** Mean and 95% interval of a metric across replications, as a search reports them. */
interface Stats {
  n: number;
  mean: number;
  sd: number;
  ci95: [number, number];
}

/** The part of a search's answer (`retrystorm tune`'s tune.json) that its report and CSV show. */
/**
 * How a search's table says whether a candidate meets a constraint, by where the 95% interval of
 * its mean lies against the bound (`met` of tune.json): within it, beyond it, or across it.
 */
export const MET_WORDS: Readonly<Record<'yes' | 'no' | 'unknown', string>> = { yes: 'met', no: 'not met', unknown: 'undecided' };

/** What {@link MET_WORDS} mean, for a legend beside the table. */
export const MET_LEGEND = `${MET_WORDS.yes}: the interval lies within the constraint's bound; ${MET_WORDS.no}: beyond it; ${MET_WORDS.unknown}: across it (more replications may decide)`;

export interface TuneReportInput {
  experiment: string;
  seed: number;
  headline: string;
  status: string;
  stopReason: string | null;
  totalRuns: number;
  maxRuns: number;
  /** Each dimension with the layers it sets by full path (a tied selector's several). */
  space: Array<{ path: string; dimension: unknown; layers?: string[] }>;
  objectives: Array<{ label: string; goal: string; tolerance: number | null }>;
  constraints: string[];
  rounds: Array<{ index: number; replications: number; entered: string[]; runs: number; totalRuns: number; leader: string | null; dropped: Array<{ id: string; reason: string }>; added: string[] }>;
  ranking: Array<{
    rank: number;
    id: string;
    label: string;
    origin: string;
    values: Record<string, unknown> | null;
    preset: { layer: string; name: string } | null;
    replications: number;
    status: string;
    reason: string | null;
    droppedInRound: number | null;
    feasibility: string;
    objectives: Stats[];
    constraints: Array<Stats & { met: keyof typeof MET_WORDS }>;
  }>;
  recommendation: {
    id: string;
    label: string;
    overrides: Record<string, Record<string, unknown>>;
    setFlags: string[];
    indistinguishableFrom: string[];
    notSeparatedFrom: string[];
    configuration?: Array<{ layer: string; layers?: string[]; exports: Array<{ format: string; text: string; warnings: string[] }> }>;
  } | null;
  front: string[];
  closest: string[];
  presets: Array<{ id: string; layer: string; name: string; rank: number }>;
}

/** How the page is made: the experiment's description, provenance, and how vega is loaded. */
export interface TuneReportOptions {
  description: string;
  version: string;
  date: string;
  runTimeMs: number;
  assets: ReportAssets;
  /** The metric each objective and constraint reads (`windows.after.recoveryMs`), so that durations are shown in the unit that reads best; without them, as they are. */
  keys?: { objectives: readonly string[]; constraints: readonly string[] };
}

/**
 * The ranking of a search as one long CSV table: one row per candidate and metric (objectives,
 * then constraints): rank, candidate, status, feasibility, replications, metric, n, mean, sd,
 * ci95_low, ci95_high. Rows in rank order.
 */
export function tuneCsv(a: TuneReportInput): string {
  const rows = [['rank', 'candidate', 'label', 'status', 'feasibility', 'replications', 'metric', 'n', 'mean', 'sd', 'ci95_low', 'ci95_high'].join(',')];
  for (const r of a.ranking) {
    const lead = [r.rank, r.id, r.label, r.status === 'survivor' ? 'survivor' : `dropped: ${r.reason ?? ''}`, r.feasibility, r.replications];
    const metrics: Array<[string, Stats]> = [
      ...a.objectives.map((o, i): [string, Stats] => [`objective ${o.label}`, r.objectives[i] as Stats]),
      ...a.constraints.map((c, i): [string, Stats] => [`constraint ${c}`, r.constraints[i] as Stats]),
    ];
    for (const [name, s] of metrics) rows.push([...lead, name, s.n, s.mean, s.sd, s.ci95[0], s.ci95[1]].map(csvCell).join(','));
  }
  return rows.join('\n') + '\n';
}

/** A mean and its interval (`1.877 [1.863, 1.89]`); a duration's (metric `key`) in the unit that reads best for its mean (`1.5 [1.4, 1.6] s`). */
function stats(s: Stats | undefined, key?: string): string {
  if (!s || s.n === 0) return '–';
  const u = key !== undefined && isDurationMetric(key) ? shownDurationUnit(s.mean) : null;
  const per = u?.ms ?? 1;
  const unit = u ? ` ${u.unit}` : '';
  if (s.n === 1 || s.ci95[0] === s.ci95[1]) return escapeHtml(`${formatNumber(s.mean / per)}${unit}`);
  return `${escapeHtml(formatNumber(s.mean / per))} <span class="ci">[${escapeHtml(formatNumber(s.ci95[0] / per))}, ${escapeHtml(formatNumber(s.ci95[1] / per))}]</span>${escapeHtml(unit)}`;
}

/** Status of a candidate as the charts colour it. */
function group(r: TuneReportInput['ranking'][number], a: TuneReportInput): string {
  if (a.recommendation?.id === r.id) return 'recommended';
  if (r.preset !== null) return 'preset';
  if (r.status === 'survivor') return 'survivor';
  if (r.feasibility === 'infeasible') return 'infeasible';
  return 'dropped';
}

const GROUPS = { domain: ['recommended', 'survivor', 'preset', 'dropped', 'infeasible'], range: ['#d62728', '#1f77b4', '#ff7f0e', '#9d9d9d', '#2f2f2f'] };
/** Each status its own shape too (told apart without colour): one legend shows both. */
const GROUP_SHAPES = ['diamond', 'circle', 'square', 'triangle-up', 'cross'];
/** Title of the legend of the candidates' status (colour and shape). */
const GROUP_TITLE = 'Candidate';

/**
 * A scatter of candidates (one point each, colour and shape by status in one legend, tooltips with
 * the numbers; no text marks), on axes padded so that no point is cut: a numeric x fitted to its
 * values (round log ticks spanning them on a log dimension, whole-number ticks on an integer one).
 */
function scatter(rows: Array<Record<string, unknown>>, x: { field: string; title: string; type: string; log?: boolean; integer?: boolean }, y: { title: string }): Record<string, unknown> {
  const xs = rows.map((r) => r[x.field]).filter((v): v is number => typeof v === 'number');
  // Candidates' values are drawn from a range, not a grid: round ticks, never a tick at each value.
  const fitted = x.log ? logAxis(xs) : valueAxis(xs, x.log === undefined && spansDecades(xs));
  const xAxis = x.integer ? { ...fitted.axis, ...INTEGER_AXIS } : fitted.axis;
  const yFit = valueAxis(rows.map((r) => r.objective).filter((v): v is number => typeof v === 'number'), false);
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    width: 560,
    height: 300,
    data: { values: rows },
    mark: { type: 'point', filled: true, size: 70 },
    encoding: {
      x: { field: x.field, type: x.type, title: x.title, ...(x.type === 'quantitative' ? { scale: fitted.scale, axis: xAxis } : {}) },
      y: { field: 'objective', type: 'quantitative', title: y.title, scale: yFit.scale, axis: yFit.axis },
      color: { field: 'group', type: 'nominal', title: GROUP_TITLE, scale: GROUPS },
      shape: { field: 'group', type: 'nominal', title: GROUP_TITLE, scale: { domain: GROUPS.domain, range: GROUP_SHAPES } },
      tooltip: [
        { field: 'candidate', type: 'nominal' },
        { field: 'label', type: 'nominal', title: 'values' },
        { field: 'objective', type: 'quantitative', format: '.4~g' },
        { field: 'replications', type: 'quantitative' },
        { field: 'status', type: 'nominal' },
      ],
    },
  };
}

/** The charts of a search: the front (or objective against the first constraint), each parameter's effect, the rounds. */
export function tuneCharts(a: TuneReportInput): Array<{ id: string; title: string; caption: string; spec: Record<string, unknown> }> {
  const o0 = a.objectives[0] as { label: string; goal: string };
  const rows = a.ranking.map((r) => ({
    candidate: r.id,
    label: r.label,
    objective: r.objectives[0]?.mean ?? null,
    objective2: r.objectives[1]?.mean ?? null,
    constraint: r.constraints[0]?.mean ?? null,
    replications: r.replications,
    status: r.status === 'survivor' ? 'survivor' : (r.reason ?? 'dropped'),
    group: group(r, a),
    ...(r.values ?? {}),
  }));
  const charts: Array<{ id: string; title: string; caption: string; spec: Record<string, unknown> }> = [];
  const finite = rows.filter((r) => typeof r.objective === 'number' && Number.isFinite(r.objective));
  if (a.objectives.length > 1) {
    const o1 = a.objectives[1] as { label: string };
    const pts = finite.filter((r) => typeof r.objective2 === 'number');
    const spec = scatter(pts, { field: 'objective2', title: o1.label, type: 'quantitative' }, { title: o0.label });
    charts.push({ id: 'front', title: `${o0.label} against ${o1.label}`, caption: `Each candidate at its last replication count; the Pareto front is ${a.front.join(', ') || 'empty'}.`, spec });
  } else if (a.constraints.length > 0) {
    const pts = finite.filter((r) => typeof r.constraint === 'number');
    const spec = scatter(pts, { field: 'constraint', title: a.constraints[0] as string, type: 'quantitative' }, { title: o0.label });
    charts.push({ id: 'front', title: `${o0.label} against ${a.constraints[0]}`, caption: 'Each candidate at its last replication count: the recommendation is the best objective among the candidates proven to meet every constraint.', spec });
  }
  for (const [i, s] of a.space.entries()) {
    const dim = s.dimension as { kind: string };
    const numeric = dim.kind !== 'choice';
    const pts = finite.filter((r) => (r as Record<string, unknown>)[s.path] !== undefined).map((r) => ({ ...r, value: (r as Record<string, unknown>)[s.path] }));
    const spec = scatter(pts, { field: 'value', title: paramTitle(s.path), type: numeric ? 'quantitative' : 'nominal', log: dim.kind === 'log', integer: dim.kind === 'int' }, { title: o0.label });
    charts.push({ id: `param-${i}`, title: `${o0.label} against ${paramLabel(s.path)}`, caption: `The effect of ${s.path}: every candidate of the space at its last replication count (presets outside the space are left out).`, spec });
  }
  const roundRows = a.rounds.flatMap((r) => [
    { round: r.index, what: 'entered', candidates: r.entered.length },
    { round: r.index, what: 'dropped', candidates: r.dropped.length },
  ]);
  charts.push({
    id: 'rounds',
    title: 'Candidates per round',
    caption: 'How many candidates entered each round and how many it dropped (proven infeasible, worse than the leader at 95%, or halved); replications double every round.',
    spec: {
      $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
      width: 560,
      height: 220,
      data: { values: roundRows },
      mark: 'bar',
      encoding: {
        x: { field: 'round', type: 'ordinal', title: 'Round' },
        xOffset: { field: 'what' },
        y: { field: 'candidates', type: 'quantitative', title: 'Candidates', axis: INTEGER_AXIS },
        color: { field: 'what', type: 'nominal', title: 'Candidates', scale: { domain: ['entered', 'dropped'], range: ['#1f77b4', '#9d9d9d'] } },
        tooltip: [{ field: 'round' }, { field: 'what' }, { field: 'candidates' }],
      },
    },
  });
  return charts;
}

const STYLE = `${CHART_PAGE_STYLE}th, td { overflow-wrap: normal; word-break: keep-all; }
td.num { white-space: nowrap; }
.ci { color: #59636e; font-size: 12px; }
code, pre { font-size: 13px; background: #f6f8fa; }
pre { padding: 8px; white-space: pre-wrap; }
`;

/** The recommended policy of each tuned layer in every export format, each with what the format cannot express. */
function configurationHtml(layers: NonNullable<NonNullable<TuneReportInput['recommendation']>['configuration']>): string {
  if (layers.length === 0) return '';
  const blocks = layers.flatMap((l) => [
    // Which layers the entry applies to: a tied dimension's layers share one.
    ...(l.layers !== undefined && l.layers.length > 0 ? [`<p>${escapeHtml(l.layer)} at ${l.layers.map((p) => `<code>${escapeHtml(p)}</code>`).join(', ')}:</p>`] : []),
    ...l.exports.map(
      (e) =>
        `<details><summary>${escapeHtml(`${l.layer} as ${e.format}`)}${e.warnings.length > 0 ? ` (${e.warnings.length} warning${e.warnings.length > 1 ? 's' : ''})` : ''}</summary>${
          e.warnings.length > 0 ? `<ul>${e.warnings.map((w) => `<li>${escapeHtml(w)}</li>`).join('')}</ul>` : ''
        }<pre>${escapeHtml(e.text)}</pre></details>`,
    ),
  ]);
  return `\n<p>As configuration (<code>retrystorm export</code>; what a format cannot express is listed as a warning):</p>\n${blocks.join('\n')}`;
}

/** The HTML report of a search: the recommendation, the ranked table, the presets, the front, each parameter's effect, the rounds. */
export function renderTuneReport(a: TuneReportInput, opts: TuneReportOptions): string {
  const charts = tuneCharts(a);
  const rec = a.recommendation;
  const recHtml = rec
    ? `<h2>Recommendation</h2>
<p><strong>${escapeHtml(rec.id)}</strong>: ${escapeHtml(rec.label)}.${rec.indistinguishableFrom.length > 0 ? ` Indistinguishable from ${escapeHtml(rec.indistinguishableFrom.join(', '))} (equivalence at 5%).` : ''}${rec.notSeparatedFrom.length > 0 ? ` Not yet separated from ${escapeHtml(rec.notSeparatedFrom.join(', '))}.` : ''}</p>
<p>As overrides of the experiment's scenario:</p><pre>${escapeHtml(JSON.stringify(rec.overrides, null, 2))}</pre>
<p>As flags:</p><pre>${escapeHtml(rec.setFlags.join(' \\\n  '))}</pre>${configurationHtml(rec.configuration ?? [])}`
    : `<h2>No recommendation</h2><p>No candidate was proven to meet the constraints. Closest: ${escapeHtml(a.closest.join(', '))}.</p>`;
  const head = ['Rank', 'Candidate', ...a.objectives.map((o) => `${o.goal === 'minimize' ? 'Minimise' : 'Maximise'} ${o.label}`), ...a.constraints, 'Replications', 'Status'];
  const body = a.ranking
    .map(
      (r) =>
        `<tr><td class="num">${r.rank}</td><td>${escapeHtml(`${r.id}: ${r.label}`)}</td>${r.objectives.map((s, i) => `<td class="num">${stats(s, opts.keys?.objectives[i])}</td>`).join('')}${r.constraints
          .map((s, i) => `<td class="num">${stats(s, opts.keys?.constraints[i])} ${MET_WORDS[s.met]}</td>`)
          .join('')}<td class="num">${r.replications}</td><td>${escapeHtml(r.status === 'survivor' ? 'survivor' : `${r.reason ?? 'dropped'} (round ${r.droppedInRound})`)}</td></tr>`,
    )
    .join('\n');
  const presets = a.presets.length > 0 ? `<h2>Presets</h2><ul>${a.presets.map((p) => `<li>${escapeHtml(`${p.name} at ${p.layer}`)}: rank ${p.rank} of ${a.ranking.length}</li>`).join('')}</ul>` : '';
  const rounds = a.rounds
    .map((r) => `<tr><td class="num">${r.index}</td><td class="num">${r.replications}</td><td class="num">${r.entered.length}</td><td class="num">${r.runs}</td><td class="num">${r.totalRuns}</td><td>${escapeHtml(r.leader ?? '–')}</td><td>${escapeHtml(r.dropped.map((d) => d.id).join(', ') || '–')}</td><td>${escapeHtml(r.added.join(', ') || '–')}</td></tr>`)
    .join('\n');
  // A dimension tied across several layers says which: one value is set at all of them.
  const tiedAt = (layers: readonly string[] | undefined) => (layers !== undefined && layers.length > 1 ? `, one value at ${layers.length} layers: ${layers.map((l) => `<code>${escapeHtml(l)}</code>`).join(', ')}` : '');
  const space = a.space.map((s) => `<li><code>${escapeHtml(s.path)}</code>: ${escapeHtml(formatValue(s.dimension))}${tiedAt(s.layers)}</li>`).join('');
  return `${reportHead({ title: `${a.experiment}: retrystorm tune`, style: STYLE, version: opts.version, assets: opts.assets })}<body>
<main>
<h1>${escapeHtml(a.experiment)}</h1>
<p class="finding">${escapeHtml(a.headline)}</p>
${opts.description ? `<details><summary>Description</summary><p class="description">${escapeHtml(opts.description)}</p></details>` : ''}
<p>Space:</p><ul>${space}</ul>
<p>Constraints: ${escapeHtml(a.constraints.join('; ') || 'none')}. ${a.totalRuns} runs in ${a.rounds.length} rounds (at most ${a.maxRuns}).</p>
${recHtml}
${presets}
<h2>Ranking</h2>
<table><thead><tr>${head.map((h) => `<th>${escapeHtml(h)}</th>`).join('')}</tr></thead><tbody>
${body}
</tbody></table>
<p class="hint">Each figure is the mean over the candidate's replications with its 95% interval [low, high]${a.constraints.length > 0 ? `; ${escapeHtml(MET_LEGEND)}` : ''}.</p>
<h2>Charts</h2>
${charts.map((c) => `<figure><h3>${escapeHtml(c.title)}</h3><div class="vis" id="chart-${c.id}"></div><figcaption>${escapeHtml(c.caption)}</figcaption></figure>`).join('\n')}
<h2>Rounds</h2>
<table><thead><tr><th>Round</th><th>Replications</th><th>Candidates</th><th>Runs</th><th>Runs so far</th><th>Leader</th><th>Dropped</th><th>Added by refinement</th></tr></thead><tbody>
${rounds}
</tbody></table>
<footer>retrystorm ${escapeHtml(opts.version)} tune, seed ${a.seed}, ${escapeHtml(opts.date.slice(0, 10))}, ${escapeHtml(formatDuration(opts.runTimeMs))}.</footer>
</main>
<script type="application/json" id="tune-charts">${chartsForScript(charts)}</script>
<script>${inlineScript(chartBoot('tune-charts'))}</script>
</body>
</html>
`;
}
