// `retrystorm risk`'s report: a page of its own from risk.json: the finding computed from the
// estimates, the table of cells (probability, interval, relative error, effort, plain Monte Carlo's
// runs for the same precision), and the charts of riskCharts.ts.
import { partRisk, type RiskResult } from '../sweep/riskSweep.js';
import { DEFAULT_RISK_METHOD, type RiskSection } from '../experiment/riskSchema.js';
import { formatDuration } from '../policy/formatDuration.js';
import { groupThousands } from '../policy/groupThousands.js';
import { chartBoot, CHART_PAGE_STYLE } from './chartPage.js';
import { chartsForScript, escapeHtml, inlineScript } from './escape.js';
import { formatValue } from './format.js';
import { paramLabel, valueInWords } from './metrics.js';
import { reportHead, type ReportAssets } from './renderReport.js';
import { cellName, describeHorizon, exampleChart, probabilityChart, pyramidChart, seriesOf, sweptParam, type EstimatedCell, type RiskChart } from './riskCharts.js';

/** How the page is made: provenance and how vega is loaded. */
export interface RiskReportOptions {
  version: string;
  date: string;
  /** How long the estimates took (null: not known, a rebuilt report). */
  runTimeMs: number | null;
  quick: boolean;
  assets: ReportAssets;
}

/** A probability in a sentence: two significant digits, with an exponent below 1e-3 (`2.9e-6`, `0.031`). */
export function formatProbability(p: number): string {
  if (!Number.isFinite(p)) return '–';
  if (p === 0) return '0';
  if (p < 1e-3) return p.toExponential(1).replace(/\.0e/, 'e');
  return String(Number(p.toPrecision(2)));
}

/**
 * The bound of one cell where no collapse was seen: below about one over its trajectories; per
 * excursion (`excursions`), that bound per excursion carried to the horizon as the estimate is,
 * 1 - exp(-(excursions in the horizon) / trajectories) (src/riskModel/excursions.ts).
 */
function cellBound(c: EstimatedCell): number {
  const perTrajectory = 1 / Math.max(1, c.risk.effort.runs);
  const e = c.risk.excursions;
  if (e === null || !Number.isFinite(e.perHour)) return perTrajectory;
  return -Math.expm1(-((e.perHour * c.horizonMs) / 3_600_000) * perTrajectory);
}

/** The bound of cells where no collapse was seen: the loosest of their {@link cellBound}s, and how it was made. */
export function noCollapseBound(cells: readonly EstimatedCell[]): string {
  const worst = cells.reduce((a, c) => (cellBound(c) > cellBound(a) ? c : a));
  const runs = groupThousands(String(Math.max(1, worst.risk.effort.runs)));
  const bound = formatProbability(cellBound(worst));
  const e = worst.risk.excursions;
  if (e === null || !Number.isFinite(e.perHour)) return `below about 1/${runs} = ${bound}`;
  const inHorizon = groupThousands(String(Math.round((e.perHour * worst.horizonMs) / 3_600_000)));
  return `below about ${bound}: none of ${runs} excursions collapsed, and about ${inHorizon} start within ${describeHorizon({ cells: [worst] })}`;
}

/** Values of the parameter `param` in words joined by `sep`, their unit said once when it is a plain suffix (`1200, 1300 operations/s`; `1 s, 2 s`). */
function valuesInWords(param: string, values: readonly unknown[], sep = ', '): string {
  const raw = values.map((v) => formatValue(v));
  const worded = raw.map((v) => valueInWords(param, v));
  const suffixes = worded.map((w, i) => (w.startsWith(raw[i] as string) ? w.slice((raw[i] as string).length) : null));
  const suffix = suffixes[0];
  if (suffix === null || suffix === undefined || suffixes.some((x) => x !== suffix)) return worded.join(sep);
  return `${raw.join(sep)}${suffix}`;
}

/** The values a part's cells take of `param`: ` at Label = lo to hi unit`, or its one value. */
function rangeInWords(param: string, lo: number, hi: number): string {
  return ` at ${paramLabel(param)} = ${valuesInWords(param, lo === hi ? [lo] : [lo, hi], ' to ')}`;
}

/**
 * One series' estimates in a part, across `param` from `lo` to `hi`: where a collapse was seen,
 * `~a to ~b` (each end said where it is not the part's end, `at x`), or `~a at x`; where none was,
 * the values and the bound. Without a swept parameter: `~a`, or `~a to ~b across its cells`.
 */
function seriesSentence(cells: readonly EstimatedCell[], param: string | null, lo: unknown, hi: unknown): string {
  const value = (c: EstimatedCell) => (param === null ? undefined : c.params[param]);
  const sorted = param === null ? [...cells] : [...cells].sort((a, b) => (value(a) as number) - (value(b) as number));
  const seen = sorted.filter((c) => c.risk.probability > 0);
  const unseen = sorted.filter((c) => c.risk.probability === 0);
  const at = (c: EstimatedCell, end: unknown) => (param === null || value(c) === end ? '' : ` at ${valuesInWords(param, [value(c)])}`);
  const parts: string[] = [];
  const first = seen[0];
  const last = seen[seen.length - 1];
  if (param === null && seen.length > 1) {
    const ps = seen.map((c) => c.risk.probability);
    parts.push(`~${formatProbability(Math.min(...ps))} to ~${formatProbability(Math.max(...ps))} across its cells`);
  } else if (first !== undefined && last !== undefined && first !== last) {
    parts.push(`~${formatProbability(first.risk.probability)}${at(first, lo)} to ~${formatProbability(last.risk.probability)}${at(last, hi)}`);
  } else if (first !== undefined) {
    parts.push(`~${formatProbability(first.risk.probability)}${param === null || lo === hi ? '' : ` at ${valuesInWords(param, [value(first)])}`}`);
  }
  if (unseen.length > 0) {
    const where = param === null || seen.length === 0 ? '' : ` at ${valuesInWords(param, unseen.map(value))}`;
    parts.push(`${seen.length === 0 ? 'no collapse seen' : 'none seen'}${where} (${noCollapseBound(unseen)})`);
  }
  return parts.join(', ');
}

/**
 * The report's one-line finding, from the estimates alone: P(collapse within the horizon) of each
 * part across the swept parameter's range (`at Label = lo to hi unit`), then each series of the
 * part (its variant, named when the part has several) as `~a to ~b`, a collapse seen at one value
 * only as `~a at x`, and the values where none was seen with their bound.
 */
export function riskFinding(result: RiskResult): string {
  const cells = result.cells.filter((c): c is EstimatedCell => c.state === 'ok');
  if (cells.length === 0) return 'No cell could be estimated (see the errors below).';
  const param = sweptParam(cells);
  const byPart = groupBy(cells, (c) => c.part);
  const clauses = [...byPart].map(([part, partCells]) => {
    const values = param === null ? [] : partCells.map((c) => c.params[param] as number);
    const [lo, hi] = [Math.min(...values), Math.max(...values)];
    const series = groupBy(partCells, (c) => c.variant);
    const texts = [...series].map(([variant, cs]) => `${series.size > 1 ? `${variant} ` : ''}${seriesSentence(cs, param, lo, hi)}`);
    return { where: `${byPart.size > 1 ? ` in ${part}` : ''}${param === null ? '' : rangeInWords(param, lo, hi)}`, texts };
  });
  const horizon = `P(collapse within ${describeHorizon(result)})`;
  return `${clauses.map((c, i) => `${i === 0 ? horizon : 'In'}${i === 0 ? c.where : c.where.replace(/^ in /, ' ')}: ${c.texts.join('; ')}`).join('. ')}.`;
}

/** Items grouped by a key, in the order each key first appears. */
function groupBy<T>(items: readonly T[], key: (item: T) => string): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const item of items) out.set(key(item), [...(out.get(key(item)) ?? []), item]);
  return out;
}

/** A ratio to two significant digits, thousands grouped (`40`, `1.5`, `12,000`). */
function formatRatio(x: number): string {
  const r = Number(x.toPrecision(2));
  return r >= 1000 ? groupThousands(String(Math.round(r))) : String(r);
}

/** The effort of a cell against plain Monte Carlo's for the same relative error: `40x fewer runs`, or '–' when there is nothing to compare. */
export function effortComparison(c: EstimatedCell): string {
  const mc = c.risk.monteCarloRuns;
  if (c.risk.method === 'monte-carlo' || !Number.isFinite(mc) || !(c.risk.effort.runs > 0)) return '–';
  const ratio = mc / c.risk.effort.runs;
  return ratio >= 1 ? `${formatRatio(ratio)}x fewer runs` : `${formatRatio(1 / ratio)}x more runs`;
}

/** The table of cells. */
function cellTable(result: RiskResult, manyParts: boolean): string {
  const head = ['Cell', 'P(collapse)', '95% interval', 'Relative error', 'Method', 'Runs', 'Events', 'CPU', 'Plain Monte Carlo runs, same relative error', 'Against plain Monte Carlo'];
  const row = (c: RiskResult['cells'][number]) => {
    if (c.state === 'errored') return `<tr><td>${escapeHtml(`${seriesOf(c, manyParts)} ${JSON.stringify(c.params)}`)}</td><td colspan="${head.length - 1}">errored: ${escapeHtml(c.error)}</td></tr>`;
    const r = c.risk;
    // No collapse seen: the interval of the repetitions is [0, 0], and what can be said is the bound.
    const seen = r.probability > 0;
    const p = seen ? formatProbability(r.probability) : '0, no collapse seen';
    const interval = seen ? `[${formatProbability(r.ci95[0])}, ${formatProbability(r.ci95[1])}]` : noCollapseBound([c]);
    const cells = [p, interval, Number.isFinite(r.relativeError) ? r.relativeError.toFixed(2) : '–', r.method, groupThousands(String(r.effort.runs)), groupThousands(String(r.effort.events)), formatDuration(r.effort.cpuMs), Number.isFinite(r.monteCarloRuns) ? groupThousands(String(Math.round(r.monteCarloRuns))) : '–', effortComparison(c)];
    return `<tr><td>${escapeHtml(cellName(c, manyParts))}</td>${cells.map((x) => `<td class="num">${escapeHtml(x)}</td>`).join('')}</tr>`;
  };
  return `<div class="wide"><table><thead><tr>${head.map((h) => `<th>${escapeHtml(h)}</th>`).join('')}</tr></thead><tbody>\n${result.cells.map(row).join('\n')}\n</tbody></table></div>`;
}

/** What one risk section estimates, in a sentence. */
function sectionQuestion(risk: RiskSection, horizon: string): string {
  const { importance, collapse, method } = risk;
  const where = collapse.service ?? collapse.cache;
  const cond = `${collapse.metric}${where ? ` of ${where}` : ''} ${collapse.above !== undefined ? `above ${collapse.above}` : `below ${collapse.below}`}${collapse.forMs > 0 ? ` for ${formatDuration(collapse.forMs)}` : ''}`;
  const grid = risk.checkEveryMs > 0 ? `checked every ${formatDuration(risk.checkEveryMs)}` : 'checked after every event';
  const watched = importance.service ?? importance.cache;
  return `The probability that ${cond} (${grid}) within ${horizon}, estimated by ${method === 'monte-carlo' ? 'plain Monte Carlo runs' : `${method ?? DEFAULT_RISK_METHOD} splitting on ${importance.metric}${watched ? ` of ${watched}` : ''}`}.`;
}

/** What the result estimates, in a sentence: one when every part shares its risk section, else one per part (`In part x: ...`). */
export function riskQuestion(result: RiskResult): string {
  const texts = result.parts.map((p) => sectionQuestion(p.risk, describeHorizon({ cells: result.cells.filter((c) => c.part === p.name) })));
  if (new Set(texts).size <= 1) return sectionQuestion(partRisk(result, result.parts[0]?.name ?? ''), describeHorizon(result));
  return result.parts.map((p, i) => `In part ${p.name}: ${texts[i] as string}`).join(' ');
}

const STYLE = `${CHART_PAGE_STYLE}.wide { overflow-x: auto; }
`;

/** The charts of a risk result, those its data allow. */
export function riskCharts(result: RiskResult): RiskChart[] {
  const cells = result.cells.filter((c): c is EstimatedCell => c.state === 'ok');
  const manyParts = new Set(cells.map((c) => c.part)).size > 1;
  return [probabilityChart(result, cells, manyParts), pyramidChart(result, cells, manyParts), exampleChart(result, cells, manyParts)].filter((c): c is RiskChart => c !== null);
}

/** The HTML report of `retrystorm risk`: the finding, the question, the cells' table, the charts. Self-contained with inline assets. */
export function renderRiskReport(result: RiskResult, opts: RiskReportOptions): string {
  const charts = riskCharts(result);
  const manyParts = new Set(result.cells.map((c) => c.part)).size > 1;
  const figures = charts.map((c) => `<figure><h3>${escapeHtml(c.title)}</h3><div class="vis" id="chart-${escapeHtml(c.id)}" role="img" aria-label="${escapeHtml(c.title)}"></div><figcaption>${escapeHtml(c.caption)}</figcaption></figure>`);
  const mode = opts.quick ? 'Quick mode (the file\'s quick overrides): smaller estimates than the full run.' : 'Full run.';
  return `${reportHead({ title: `${result.experiment}: retrystorm risk`, style: STYLE, version: opts.version, assets: opts.assets })}<body>
<main>
<h1>${escapeHtml(result.experiment)}</h1>
<p class="finding">${escapeHtml(riskFinding(result))}</p>
${result.description ? `<details><summary>Description</summary><p class="description">${escapeHtml(result.description)}</p></details>` : ''}
<p>${escapeHtml(riskQuestion(result))} ${escapeHtml(mode)}</p>
<h2>Cells</h2>
${cellTable(result, manyParts)}
<p>Each interval is over the estimate's independent repetitions (that of a log-normal mean, the modified Cox method, or Student-t when a repetition saw no collapse; clipped to [0, 1]; plain Monte Carlo: Wilson). The last two columns compare the work: the plain runs that would give the same relative error, (1 - p) / (p × relative error²), against the runs splitting made. CPU time is measured; every other number is the same on every run of the same file and seed.</p>
<h2>Charts</h2>
${figures.join('\n') || '<p>No chart: no cell saw a collapse.</p>'}
<footer>retrystorm ${escapeHtml(opts.version)} risk, seed ${result.seed}, ${escapeHtml(opts.date.slice(0, 10))}${opts.runTimeMs === null ? '' : `, ${escapeHtml(formatDuration(opts.runTimeMs))}`}.</footer>
</main>
<script type="application/json" id="retrystorm-charts">${chartsForScript(charts)}</script>
<script>${inlineScript(chartBoot('retrystorm-charts'))}</script>
</body>
</html>
`;
}
