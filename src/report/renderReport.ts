import { evaluateAllClaims, type ClaimResult, type ClaimStatus } from './claims.js';
import { chartsForScript, escapeHtml, inlineScript } from './escape.js';
import { cascadeFindings, findingsTable, type FindingsTable } from './findings.js';
import { findingLine, partFindingLine } from './headline.js';
import { formatDuration } from '../policy/formatDuration.js';
import { DEFAULT_PRACTICAL_DIFFERENCE, type Difference } from './compare.js';
import { fewRunsCaption, fewRunsText, FEW_RUNS_MARK, showEstimate } from './estimates.js';
import { formatNumber, formatRange, formatValue, shownDurationUnit } from './format.js';
import { isDurationMetric } from './metrics.js';
import { notApplicableText } from './notApplicable.js';
import type { ReportModel, ReportPart } from './reportModel.js';
import type { ChartKind, ReportChart, ReportMetricStats } from './types.js';
import type { Scenario } from '../model/scenario.js';
import { MEMORY_CEILING_METRIC } from '../sweep/flattenMetrics.js';

/** The three browser bundles a report needs, by file name. */
export const BUNDLE_FILES = ['vega.min.js', 'vega-lite.min.js', 'vega-embed.min.js'] as const;

/**
 * How a report loads vega, vega-lite and vega-embed: inlined (a self-contained file that opens
 * anywhere, offline), or by relative path from a shared directory (e.g. `../assets/`), still offline.
 */
export type ReportAssets =
  | { mode: 'inline'; scripts: { vega: string; vegaLite: string; vegaEmbed: string } }
  | { mode: 'shared'; base: string };

/** Everything a report page is made of. */
export interface RenderReportInput {
  model: ReportModel;
  charts: readonly ReportChart[];
  assets: ReportAssets;
  /** Problems to show at the top (ignored report hints, charts that could not be drawn...). */
  warnings?: readonly string[];
  /** The claims as evaluated (evaluated from the model when absent). */
  claims?: readonly ClaimResult[];
}

const STYLE = `
:root { color-scheme: light; --ink: #1f2328; --muted: #59636e; --line: #d8dee4; --bg: #f6f8fa; }
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.5 "DejaVu Sans", system-ui, -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; color: var(--ink); background: white; }
main { max-width: 1100px; margin: 0 auto; padding: 24px 28px 48px; }
.kicker { margin: 0; color: var(--muted); font-size: 13px; text-transform: uppercase; letter-spacing: .06em; }
h1 { margin: 4px 0 8px; font-size: 28px; overflow-wrap: anywhere; }
h2 { margin: 36px 0 10px; font-size: 21px; border-bottom: 1px solid var(--line); padding-bottom: 4px; }
h3 { margin: 0 0 6px; font-size: 16px; }
.finding { font-size: 17px; margin: 6px 0 12px; padding: 8px 12px; background: #eef6ee; border-left: 4px solid #54a24b; }
.description { color: var(--ink); max-width: 80ch; white-space: pre-wrap; overflow-wrap: anywhere; }
table { border-collapse: collapse; margin: 8px 0 16px; font-size: 14px; }
th, td { border: 1px solid var(--line); padding: 4px 10px; text-align: left; vertical-align: top; overflow-wrap: normal; word-break: normal; hyphens: none; }
.table-wrap { max-width: 100%; overflow-x: auto; }
th { background: var(--bg); font-weight: 600; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
td.num .ci { color: var(--muted); font-size: 12px; }
td.num .few { color: var(--muted); font-size: 11px; vertical-align: super; }
table.meta th { width: 11em; }
.swatch { display: inline-block; width: 11px; height: 11px; border-radius: 2px; margin-right: 6px; vertical-align: -1px; }
.claim-ok { color: #1a7f37; font-weight: 600; white-space: nowrap; }
.claim-bad { color: #cf222e; font-weight: 600; white-space: nowrap; }
.claim-unknown { color: var(--muted); white-space: nowrap; }
.index-claims { margin: 4px 0; padding-left: 18px; font-size: 13px; }
.evidence { color: var(--muted); font-size: 12px; }
.notice { border: 1px solid #e5c07b; background: #fff8e6; padding: 8px 12px; margin: 12px 0; }
.notice ul { margin: 4px 0 0 18px; padding: 0; }
details { margin: 6px 0 14px; }
summary { cursor: pointer; color: var(--muted); }
figure.chart { margin: 22px 0 30px; }
figure.chart .vis { min-height: 120px; overflow-x: auto; }
figcaption { color: var(--muted); max-width: 80ch; margin-top: 4px; }
footer { margin-top: 40px; color: var(--muted); font-size: 13px; }
code { font-size: 13px; background: var(--bg); padding: 0 3px; border-radius: 3px; }
`;

/**
 * The page's content security policy: nothing may be loaded from the network; scripts only inline
 * or from the report's own location (the shared bundles); vega compiles its expressions with
 * `Function`, hence 'unsafe-eval'.
 */
const CSP =
  "default-src 'none'; script-src 'self' file: 'unsafe-inline' 'unsafe-eval'; style-src 'unsafe-inline'; img-src data: blob:; font-src data:; connect-src 'none'; base-uri 'none'; form-action 'none'";

const BOOT = `
(function () {
  var holder = document.getElementById('retrystorm-charts');
  var charts = JSON.parse(holder.textContent);
  charts.forEach(function (c) {
    var el = document.getElementById('chart-' + c.id);
    if (!el) return;
    if (typeof vegaEmbed !== 'function') {
      el.textContent = 'The charts need vega, vega-lite and vega-embed, which did not load.';
      console.error('vega-embed did not load');
      return;
    }
    vegaEmbed(el, c.spec, {
      mode: 'vega-lite',
      renderer: 'svg',
      actions: { export: true, source: false, compiled: false, editor: false }
    }).then(function (result) {
      el.vegaView = result.view;
      el.setAttribute('data-rendered', 'true');
    }).catch(function (e) {
      el.setAttribute('data-error', String(e && e.message || e));
      el.textContent = 'This chart could not be drawn: ' + (e && e.message || e);
      console.error(e);
    });
  });
})();
`;

/** Escaped text that may wrap after `.`, `,` and `/` (dotted paths, JSON) but never inside a word or a number. */
function breakable(text: string): string {
  return escapeHtml(text).replace(/(?<=[^\d\s])[.,/]|[.,/](?=[^\d\s])/g, '$&<wbr>');
}

function esc(v: unknown): string {
  return escapeHtml(formatValue(v));
}

/** The most entries of a distribution's list (a histogram's bounds, samples) the parameters table shows. */
const SHOWN_LIST_ENTRIES = 12;

/** A distribution's list in the parameters table: whole up to {@link SHOWN_LIST_ENTRIES}, else its first entries and its length. */
function distArg(x: unknown): string {
  if (!Array.isArray(x) || x.length <= SHOWN_LIST_ENTRIES) return formatValue(x);
  return `[${x.slice(0, SHOWN_LIST_ENTRIES - 1).map(formatValue).join(',')},... (${x.length} in all)]`;
}

/** A value for the parameters table: distributions compactly (`exponential(mean 10)`, long lists cut), lists joined. */
function compact(v: unknown): string {
  if (v !== null && typeof v === 'object' && !Array.isArray(v) && typeof (v as Record<string, unknown>).dist === 'string') {
    const { dist, ...rest } = v as Record<string, unknown>;
    const args = Object.entries(rest).map(([k, x]) => `${k} ${distArg(x)}`).join(', ');
    return `${String(dist)}(${args})`;
  }
  if (Array.isArray(v) && v.every((x) => x === null || typeof x !== 'object')) return v.map(formatValue).join(', ');
  return formatValue(v);
}

/** Flatten a scenario into dotted paths and printable values (distributions and lists of scalars kept whole). */
export function flattenForTable(value: unknown, prefix = ''): Array<[string, string]> {
  const isDist = (v: unknown) => v !== null && typeof v === 'object' && !Array.isArray(v) && typeof (v as Record<string, unknown>).dist === 'string';
  if (value === null || typeof value !== 'object' || isDist(value) || (Array.isArray(value) && value.every((x) => x === null || typeof x !== 'object'))) {
    return [[prefix, compact(value)]];
  }
  const entries = Array.isArray(value) ? value.map((v, i) => [String(i), v] as const) : Object.entries(value as Record<string, unknown>);
  if (entries.length === 0) return [[prefix, Array.isArray(value) ? '(none)' : '{}']];
  return entries.flatMap(([k, v]) => flattenForTable(v, prefix ? `${prefix}.${k}` : k));
}

function swatch(model: ReportModel, variant: string): string {
  const c = model.colors.get(variant);
  return c ? `<span class="swatch" style="background:${escapeHtml(c)}" aria-hidden="true"></span>` : '';
}

function metaTable(model: ReportModel): string {
  const run = model.run;
  const rows: Array<[string, string]> = [
    ['Seed', escapeHtml(String(model.seed))],
    ['retrystorm', escapeHtml(model.version) + (run.reportVersion !== model.version ? ` (report written by ${escapeHtml(run.reportVersion)})` : '')],
    ['Date', run.date ? escapeHtml(formatDate(run.date)) : '–'],
    ['Run time', run.runTimeMs !== null ? escapeHtml(formatDuration(run.runTimeMs)) : '–'],
    ['Mode', run.quick ? 'quick (the file\'s <code>quick</code> overrides applied)' : 'full'],
  ];
  if (run.set.length > 0) rows.push(['Overrides', run.set.map(([p, v]) => `<code>--set ${escapeHtml(p)}=${esc(v)}</code>`).join(' ')]);
  return `<table class="meta">${rows.map(([k, v]) => `<tr><th scope="row">${k}</th><td>${v}</td></tr>`).join('')}</table>`;
}

/** `2025-11-30 17:27 UTC` from an ISO date. */
function formatDate(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return `${d.toISOString().slice(0, 10)} ${d.toISOString().slice(11, 16)} UTC`;
}

function parametersSection(model: ReportModel): string {
  const multi = model.parts.length > 1;
  const blocks = model.parts.map((part) => {
    const rows: string[] = [];
    rows.push(`<tr><th scope="row">Replications</th><td>${escapeHtml(String(part.replications))} per cell</td></tr>`);
    rows.push(`<tr><th scope="row">Cells</th><td>${part.cells.length}</td></tr>`);
    for (const a of part.axes) {
      rows.push(`<tr><th scope="row">Swept: <code>${breakable(a)}</code></th><td>${(part.axisValues[a] ?? []).map(esc).join(', ')}</td></tr>`);
    }
    for (const v of part.variants) {
      if (part.variants.length === 1 && part.variantOverrides[v] === undefined) continue;
      const ov = part.variantOverrides[v];
      const text =
        ov !== null && typeof ov === 'object'
          ? Object.entries(ov as Record<string, unknown>).map(([p, x]) => `<code>${breakable(p)}</code> = ${breakable(JSON.stringify(x) ?? '')}`).join('<br>')
          : part.variants.length === 1
            ? '(the scenario as written)'
            : '';
      rows.push(`<tr><th scope="row">Variant: ${swatch(model, v)}${escapeHtml(v)}</th><td>${text}</td></tr>`);
    }
    const first = part.cells[0];
    const axisPaths = new Set(part.axes);
    const scenarioRows = first?.scenario
      ? flattenForTable(first.scenario)
          .filter(([p]) => !axisPaths.has(p))
          .map(([p, v]) => `<tr><th scope="row"><code>${breakable(p)}</code></th><td>${escapeHtml(v)}</td></tr>`)
          .join('')
      : '';
    const scenario = scenarioRows
      ? `<details><summary>Every setting of the scenario (resolved, as the first cell ran it${part.variants.length > 1 || part.axes.length > 0 ? `: ${escapeHtml(first ? `variant ${first.variant}` : '')}${first && Object.keys(first.params).length > 0 ? `, ${escapeHtml(Object.entries(first.params).map(([k, v]) => `${k} = ${formatValue(v)}`).join(', '))}` : ''}` : ''})</summary><table>${scenarioRows}</table></details>`
      : '';
    return `${multi ? `<h3>Part ${escapeHtml(part.name)}</h3>` : ''}<table>${rows.join('')}</table>${scenario}`;
  });
  return `<section id="parameters"><h2>Parameters</h2>${blocks.join('')}</section>`;
}

/** A graph part's cascade findings (computed from its data), as a list ('' for a part without services). */
function cascadeHtml(part: ReportPart): string {
  const lines = cascadeFindings(part);
  return lines.length > 0 ? `<ul class="cascade">${lines.map((l) => `<li>${escapeHtml(l)}</li>`).join('')}</ul>` : '';
}

/** A part's finding paragraph ('' without one). */
function partFindingHtml(model: ReportModel, part: ReportPart): string {
  const text = partFindingLine(model, part);
  return text ? `<p class="finding">${escapeHtml(text)}</p>` : '';
}

function findingsHtml(model: ReportModel, table: FindingsTable, part: ReportPart): string {
  if (table.rows.length === 0 || table.columns.length === 0) return '<p>No cell finished.</p>';
  const head = `<tr><th scope="col">${part.variants.length > 1 ? 'Variant' : 'Cell'}</th>${table.columns
    .map((c) => `<th scope="col">${escapeHtml(c.title)}${c.unit ? ` <span class="unit">(${escapeHtml(c.unit)})</span>` : ''}</th>`)
    .join('')}</tr>`;
  const few = new Set<number>();
  const body = table.rows
    .map((r) => {
      const cells = r.values
        .map((s, i) => {
          const na = r.notApplicable[i];
          if (na) return `<td class="num na">${escapeHtml(notApplicableText(na))}</td>`;
          if (!s || s.mean === null) return '<td class="num">–</td>';
          const column = table.columns[i];
          const per = column?.perUnit ?? 1;
          const lo = s.ci95[0];
          const hi = s.ci95[1];
          const raw = per !== 1 ? ' ms' : '';
          const e = showEstimate(column?.metric ?? '', s, per);
          if (e.few) few.add(s.n);
          const title = `mean ${s.mean}${raw}${typeof lo === 'number' && typeof hi === 'number' ? `, 95% interval [${lo}, ${hi}]${raw}` : ''}, n = ${s.n}${e.few ? `; the interval ${fewRunsText(s.n)}` : ''}`;
          const mark = e.few ? `<span class="few">${FEW_RUNS_MARK}</span>` : '';
          return `<td class="num" title="${escapeHtml(title)}">${escapeHtml(e.value)}${e.interval ? ` <span class="ci">${escapeHtml(e.interval)}</span>` : ''}${mark}</td>`;
        })
        .join('');
      return `<tr><th scope="row">${swatch(model, r.variant)}${breakable(r.label)}${r.state === 'errored' ? ' (errored replications)' : ''}</th>${cells}</tr>`;
    })
    .join('');
  const runs = [...few].sort((a, b) => a - b).join(' or ');
  const note = few.size > 0 ? `<p class="hint">${FEW_RUNS_MARK} The 95% interval ${escapeHtml(fewRunsText(runs))}.</p>` : '';
  return `<div class="table-wrap"><table class="findings">${head}${body}</table></div>${note}`;
}

/** A difference of a claim's metric and its interval (`-3.2 [-4.1, -2.3]`), a duration's in the unit that reads best for its size (`-3.2 [-4.1, -2.3] s`). */
function differenceText(d: Difference, metric: string): string {
  const u = isDurationMetric(metric) ? shownDurationUnit(Math.max(Math.abs(d.mean), ...(d.ci95 ?? []).map(Math.abs))) : null;
  const per = u?.ms ?? 1;
  const text = `${formatNumber(d.mean / per)}${d.ci95 ? ` ${formatRange(d.ci95[0] / per, d.ci95[1] / per)}` : ''}`;
  return `${text}${u ? ` ${u.unit}` : ''}${d.ci95 ? '' : ' (no interval)'}`;
}

const STATUS_CLASS: Record<ClaimStatus, string> = { supported: 'ok', contradicted: 'bad', 'not shown': 'unknown' };

/** The claims of the experiment, each with what this run's data says of it and the differences behind it. */
function claimsHtml(results: readonly ClaimResult[], multi: boolean): string {
  if (results.length === 0) return '';
  const rows = results
    .map((r) => {
      const ev = r.evidence
        .slice(0, 6)
        .map((e) => {
          const d = e.difference;
          const diff = d ? differenceText(d, r.claim.metric) : '–';
          return `${e.where ? `${breakable(e.where)}: ` : ''}${breakable(e.a)} − ${breakable(e.b)} = ${escapeHtml(diff)}`;
        })
        .join('<br>');
      const more = r.evidence.length > 6 ? `<br>and ${r.evidence.length - 6} more points` : '';
      return `<tr><td>${breakable(r.text)}</td>${multi ? `<td>${escapeHtml(r.part)}</td>` : ''}<td class="claim-${STATUS_CLASS[r.status]}">${escapeHtml(r.shown)}</td><td>${escapeHtml(r.reason)}${ev ? `<br><span class="evidence">${ev}${more}</span>` : ''}</td></tr>`;
    })
    .join('');
  return `<section id="claims"><h2>Claims</h2><p class="hint">Each claim of the experiment file, checked against this run's own data: a difference counts when its 95% interval (paired where the cells share their random numbers) excludes 0 and it is at least the metric's practical threshold (${formatNumber(DEFAULT_PRACTICAL_DIFFERENCE * 100)}% of the second cell's mean unless the file's <code>report.practicalDifference</code> sets another).</p><div class="table-wrap"><table class="claims"><tr><th scope="col">Claim</th>${multi ? '<th scope="col">Part</th>' : ''}<th scope="col">This run</th><th scope="col">Why (difference and 95% interval)</th></tr>${rows}</table></div></section>`;
}

/** The kinds of chart that draw 95% intervals across replications (bands, error bars). */
const INTERVAL_CHARTS: ReadonlySet<ChartKind> = new Set(['metric', 'pareto', 'clustering']);

/** A chart with its caption, which says so when the chart's intervals rest on few runs (its part's `replications`). */
function chartFigure(c: ReportChart, replications: number): string {
  const few = INTERVAL_CHARTS.has(c.kind) ? fewRunsCaption(replications) : '';
  const caption = few ? `${c.caption} ${few}` : c.caption;
  return `<figure class="chart" id="figure-${escapeHtml(c.id)}"><h3>${escapeHtml(c.title)}</h3><div class="vis" id="chart-${escapeHtml(c.id)}" data-kind="${escapeHtml(c.kind)}" role="img" aria-label="${escapeHtml(c.title)}"></div><figcaption>${escapeHtml(caption)}</figcaption></figure>`;
}

/** The script elements that load vega, vega-lite and vega-embed: inlined, or from the shared directory. */
export function bundleScripts(assets: ReportAssets): string {
  if (assets.mode === 'inline') {
    return [assets.scripts.vega, assets.scripts.vegaLite, assets.scripts.vegaEmbed].map((s) => `<script>${inlineScript(s)}</script>`).join('\n');
  }
  return BUNDLE_FILES.map((f) => `<script src="${escapeHtml(assets.base + f)}"></script>`).join('\n');
}

/**
 * The shell of a report page up to `</head>`: language, charset, viewport, the content security
 * policy (offline, see CSP), the generator, the title, the page's style and the vega bundles.
 */
export function reportHead(o: { title: string; style: string; version: string; assets: ReportAssets }): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="${CSP}">
<meta name="generator" content="retrystorm ${escapeHtml(o.version)}">
<title>${escapeHtml(o.title)}</title>
<style>${o.style}</style>
${bundleScripts(o.assets)}
</head>
`;
}

/**
 * The report page: a header (experiment name and description, seed, version, date, run time),
 * the parameters, a findings table per part with the headline numbers (mean ± half the 95%
 * interval), then the charts of each part with a caption each. Every text that comes from the
 * user (names, descriptions, variant labels, parameter values) is HTML-escaped, and the chart
 * specs are embedded as JSON that cannot end its script element.
 */
/**
 * Which bound stopped a cell's truncated runs, from its means (`frac`: the fraction truncated). A run
 * stopped by the in-flight cap has maxInFlight + 1 operations unfinished and any other run at most
 * maxInFlight (a drained one none), so a mean above frac x maxInFlight means some runs stopped there,
 * and one of frac x (maxInFlight + 1) all of them (a few at the cap among many stopped elsewhere do
 * not show). Otherwise a run that measured its whole horizon stopped there, any other at the event cap.
 * Runs stopped at their memory ceiling are counted by a metric of their own (`MEMORY_CEILING_METRIC`).
 */
export function truncationCause(frac: number, metrics: Record<string, ReportMetricStats>, sc: Scenario | null): string {
  // Runs stopped at their memory ceiling say so in a metric of their own, present only in them.
  const atCeiling = metrics[MEMORY_CEILING_METRIC]?.n ?? 0;
  if (atCeiling > 0) {
    const ceiling = 'the memory ceiling (run --memory-limit)';
    return atCeiling >= frac * (metrics['truncated']?.n ?? 0) ? `stopped at ${ceiling}` : `stopped at ${ceiling} or another bound`;
  }
  if (!sc) return 'stopped by a bound';
  const unfinished = metrics['operations.unfinished']?.mean ?? 0;
  if (sc.workload.kind === 'open' && unfinished > frac * sc.maxInFlight) {
    const cap = `the in-flight cap (maxInFlight ${sc.maxInFlight})`;
    return unfinished >= frac * (sc.maxInFlight + 1) ? `stopped at ${cap}` : `stopped at ${cap} or another bound`;
  }
  return (metrics['simulatedMs']?.mean ?? 0) >= sc.horizonMs
    ? `stopped at the horizon (horizonMs ${sc.horizonMs})`
    : `stopped at the event cap (maxEvents ${sc.maxEvents})`;
}

export function renderReportHtml(input: RenderReportInput): string {
  const { model, charts } = input;
  const finding = findingLine(model);
  const warnings = [...model.hintErrors.map((e) => `report hint ignored: ${e}`), ...(input.warnings ?? [])];
  const errored = model.parts.flatMap((p) => p.cells.filter((c) => c.state === 'errored'));
  const multi = model.parts.length > 1;
  const findings = model.parts
    .map((p) => `${multi ? `<h3>Part ${escapeHtml(p.name)}</h3>${partFindingHtml(model, p)}` : ''}${findingsHtml(model, findingsTable(p), p)}${cascadeHtml(p)}`)
    .join('');
  const chartSections = model.parts
    .map((p) => {
      const mine = charts.filter((c) => c.part === p.name);
      const head = multi ? `<h2 id="part-${escapeHtml(p.name)}">Part ${escapeHtml(p.name)}</h2>${p.description ? `<p class="description">${escapeHtml(p.description)}</p>` : ''}` : '';
      return `${head}${mine.length > 0 ? mine.map((c) => chartFigure(c, p.replications)).join('\n') : '<p>No chart applies to this part.</p>'}`;
    })
    .join('\n');
  const notices = [
    warnings.length > 0 ? `<div class="notice"><strong>Notes</strong><ul>${warnings.map((w) => `<li>${escapeHtml(w)}</li>`).join('')}</ul></div>` : '',
    errored.length > 0
      ? `<div class="notice"><strong>${errored.length} cell${errored.length > 1 ? 's' : ''} had errored replications</strong> (their statistics cover the others):<ul>${errored.map((c) => `<li><code>${escapeHtml(c.key)}</code>: ${escapeHtml(c.errors.join('; '))}</li>`).join('')}</ul></div>`
      : '',
  ].join('');
  const truncated = model.parts.flatMap((p) => p.cells.filter((c) => (c.metrics['truncated']?.mean ?? 0) > 0));
  const truncatedNotice =
    truncated.length > 0
      ? `<div class="notice"><strong>Truncated runs.</strong> In ${truncated.length} cell${truncated.length > 1 ? 's' : ''} some runs were stopped by their horizon, event cap, in-flight cap or memory ceiling before the system drained, so their counts stop there:<ul>${truncated
          .map((c) => {
            const frac = c.metrics['truncated']?.mean ?? 0;
            const why = truncationCause(frac, c.metrics, c.scenario);
            return `<li><code>${escapeHtml(c.key)}</code>: ${escapeHtml(`${Math.round(frac * 100)}% of runs ${why}`)}</li>`;
          })
          .join('')}</ul></div>`
      : '';
  const chartData = charts.map((c) => ({ id: c.id, spec: c.spec }));
  return `${reportHead({ title: `${model.name}: retrystorm report`, style: STYLE, version: model.run.reportVersion, assets: input.assets })}<body>
<main>
<header>
<p class="kicker">retrystorm report</p>
<h1 id="experiment-name">${escapeHtml(model.name)}</h1>
<p class="finding" id="finding">${escapeHtml(finding)}</p>
${model.description ? `<p class="description" id="experiment-description">${escapeHtml(model.description)}</p>` : ''}
${metaTable(model)}
</header>
${notices}${truncatedNotice}
<section id="findings"><h2>Findings</h2>${findings}</section>
${claimsHtml(input.claims ?? evaluateAllClaims(model), multi)}
${parametersSection(model)}
<section id="charts"><h2>Charts</h2>
<p class="hint">Hover a mark for its exact values; click a legend entry to keep only that variant (shift-click for several; double-click the chart to show them all again).</p>
${chartSections}
</section>
<footer>Written by retrystorm ${escapeHtml(model.run.reportVersion)}. Charts drawn with vega, vega-lite and vega-embed.</footer>
</main>
<script type="application/json" id="retrystorm-charts">${chartsForScript(chartData)}</script>
<script>${BOOT}</script>
</body>
</html>
`;
}

/** One line of reports/index.html. */
export interface IndexEntry {
  name: string;
  description: string;
  finding: string;
  /** Relative link to the report. */
  href: string;
  date: string | null;
  /** The report's claims, each with its status as the report prints it (`supported`, `not decided at quick size (2 runs)`...). */
  claims?: ReadonlyArray<{ text: string; part: string; status: ClaimStatus; shown: string }>;
}

/** The claims of an index line: one item per claim, its status first. */
function indexClaimsHtml(claims: IndexEntry['claims']): string {
  if (!claims || claims.length === 0) return '';
  const items = claims.map((c) => `<li><span class="claim-${STATUS_CLASS[c.status]}">${escapeHtml(c.shown)}</span>: ${escapeHtml(c.text)}</li>`).join('');
  return `<ul class="index-claims" aria-label="Claims">${items}</ul>`;
}

/** reports/index.html: every experiment's report, linked, with its one-line finding. */
export function renderIndexHtml(entries: readonly IndexEntry[], version: string): string {
  const items = entries
    .map(
      (e) =>
        `<tr><th scope="row"><a href="${escapeHtml(encodeURI(e.href))}">${escapeHtml(e.name)}</a></th><td>${escapeHtml(e.finding)}${indexClaimsHtml(e.claims)}${e.description ? `<details><summary>Description</summary><p class="description">${escapeHtml(e.description)}</p></details>` : ''}</td><td>${e.date ? escapeHtml(formatDate(e.date)) : '–'}</td></tr>`,
    )
    .join('\n');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<title>retrystorm reports</title>
<style>${STYLE}</style>
</head>
<body>
<main>
<p class="kicker">retrystorm</p>
<h1>Reports</h1>
<p>${entries.length} experiment${entries.length === 1 ? '' : 's'}. Each report opens offline.</p>
<table class="index"><tr><th scope="col">Experiment</th><th scope="col">Finding</th><th scope="col">Date</th></tr>
${items}
</table>
<footer>Written by retrystorm ${escapeHtml(version)}.</footer>
</main>
</body>
</html>
`;
}
