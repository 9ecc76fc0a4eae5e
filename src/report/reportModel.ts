import { patchedRoot, resolveDescriptions, resolvedOrAsWritten } from '../experiment/index.js';
import { variantColors, type VariantColors } from './colors.js';
import { clipInterval } from '../metrics/metricStats.js';
import { metricInfo, paramsInWords } from './metrics.js';
import { notApplicable } from './notApplicable.js';
import { hintsFromSource, type CellSelector, type ReportHints } from './reportHints.js';
import type { ReportCell, ReportRunInfo, ReportSummary } from './types.js';

/** One part of an experiment as a report shows it. */
export interface ReportPart {
  name: string;
  description: string;
  /** Variant names in file order. */
  variants: string[];
  /** Swept paths (grid axes, then zip axes). */
  axes: string[];
  /** Values of each axis: numbers ascending, others in file order. */
  axisValues: Record<string, unknown[]>;
  /** Cells in sweep order (first axis slowest), variants fastest. */
  cells: ReportCell[];
  replications: number;
  /** The part's hints merged over the experiment's (the part's win). */
  hints: ReportHints;
  /** Variant name -> its overrides as written in the file. */
  variantOverrides: Record<string, unknown>;
}

/** Everything a report is built from. */
export interface ReportModel {
  name: string;
  description: string;
  seed: number;
  /** Version of retrystorm that produced the results. */
  version: string;
  parts: ReportPart[];
  colors: VariantColors;
  hints: ReportHints;
  /** Problems with the report hints (the hints in question are ignored). */
  hintErrors: string[];
  run: ReportRunInfo;
}

type Obj = Record<string, unknown>;

function isObject(v: unknown): v is Obj {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** Equality of JSON values (objects by sorted keys). */
export function sameValue(a: unknown, b: unknown): boolean {
  return canonical(a) === canonical(b);
}

function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (isObject(v)) return `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${canonical(v[k])}`).join(',')}}`;
  return JSON.stringify(v) ?? 'null';
}

/** Lists of values the file gives for a swept path (in the sweep and in quick patches), to keep the file's order. */
function sourceAxisLists(source: Obj | null, partIndex: number | null, axis: string): unknown[][] {
  if (!source) return [];
  const holders: unknown[] = [];
  const base = partIndex === null ? source : Array.isArray(source.parts) ? source.parts[partIndex] : undefined;
  if (isObject(base)) {
    holders.push(base.sweep);
    if (isObject(base.quick)) holders.push(base.quick.sweep);
  }
  const lists: unknown[][] = [];
  for (const h of holders) {
    if (!isObject(h)) continue;
    for (const kind of ['grid', 'zip']) {
      const axes = h[kind];
      if (isObject(axes) && Array.isArray(axes[axis])) lists.push(axes[axis] as unknown[]);
    }
  }
  return lists;
}

function orderValues(values: unknown[], lists: unknown[][]): unknown[] {
  const distinct: unknown[] = [];
  for (const v of values) if (!distinct.some((d) => sameValue(d, v))) distinct.push(v);
  if (distinct.every((v) => typeof v === 'number')) return (distinct as number[]).sort((a, b) => a - b);
  for (const list of lists) {
    if (distinct.every((v) => list.some((l) => sameValue(l, v)))) {
      return list.filter((l, i) => distinct.some((v) => sameValue(v, l)) && list.findIndex((x) => sameValue(x, l)) === i);
    }
  }
  return distinct;
}

function mergeHints(top: ReportHints, part: ReportHints | undefined, partName: string): ReportHints {
  const forPart = (sel: CellSelector[] | undefined) => sel?.filter((s) => s.part === undefined || s.part === partName);
  const merged: ReportHints = {};
  const finding = part?.finding;
  if (finding !== undefined) merged.finding = finding;
  if (part?.claims !== undefined) merged.claims = part.claims;
  const cells = part?.cells ?? forPart(top.cells);
  if (cells !== undefined && cells.length > 0) merged.cells = cells;
  const findings = part?.findings ?? top.findings;
  if (findings !== undefined) {
    const fc = part?.findings ? findings.cells : forPart(findings.cells);
    merged.findings = { ...(findings.metrics ? { metrics: findings.metrics } : {}), ...(fc && fc.length > 0 ? { cells: fc } : {}) };
  }
  const practical = { ...top.practicalDifference, ...part?.practicalDifference };
  if (Object.keys(practical).length > 0) merged.practicalDifference = practical;
  const charts = part?.charts ?? top.charts?.map((c) => (c.cells ? { ...c, cells: forPart(c.cells) ?? [] } : c));
  if (charts !== undefined) merged.charts = charts;
  return merged;
}

/** The file's root as the run saw it (quick mode and `--set` applied), or null when it cannot be patched. */
function ranRoot(source: Obj, run: ReportRunInfo): Obj | null {
  try {
    return patchedRoot(source, { quick: run.quick, set: run.set });
  } catch {
    return null;
  }
}

/** The parts' descriptions of the plan that ran (placeholders resolved), or null when they cannot be. */
function partDescriptions(ran: Obj | null): string[] | null {
  if (!ran) return null;
  const texts = resolveDescriptions(ran);
  return texts.ok ? texts.parts : null;
}

/** A part's hints with the placeholders of its charts' titles and captions resolved in the plan that ran (the part, then the root). */
function withPlanTexts(hints: ReportHints, ran: Obj | null, partIndex: number): ReportHints {
  if (!ran || !hints.charts) return hints;
  const part = partIndex >= 0 && Array.isArray(ran.parts) ? ran.parts[partIndex] : ran;
  const scopes = [part, ran];
  const charts = hints.charts.map((c) => ({
    ...c,
    ...(c.title !== undefined ? { title: resolvedOrAsWritten(c.title, scopes) } : {}),
    ...(c.caption !== undefined ? { caption: resolvedOrAsWritten(c.caption, scopes) } : {}),
  }));
  return { ...hints, charts };
}

/**
 * Organise a summary for a report: parts in file order, variants in file order, axes and their
 * values, cells in sweep order, and one colour per variant for the whole report. `run.source`
 * (the experiment file's JSON) supplies the orders, descriptions and report hints; without it the
 * summary alone gives a report with orders taken from the data.
 */
export function buildReportModel(summary: ReportSummary, run: ReportRunInfo): ReportModel {
  const source = isObject(run.source) ? run.source : null;
  const { top, parts: partHints, errors } = hintsFromSource(source);
  const sourceParts = source && Array.isArray(source.parts) ? (source.parts as unknown[]) : null;
  const ran = source ? ranRoot(source, run) : null;
  const partTexts = partDescriptions(ran);

  const partNames: string[] = [];
  for (const c of summary.cells) if (!partNames.includes(c.part)) partNames.push(c.part);
  if (sourceParts) {
    const order = sourceParts.map((p) => (isObject(p) && typeof p.name === 'string' ? p.name : ''));
    partNames.sort((a, b) => rank(order, a) - rank(order, b));
  }

  const parts: ReportPart[] = partNames.map((name) => {
    const idx = sourceParts ? sourceParts.findIndex((p) => isObject(p) && p.name === name) : -1;
    const sp: Obj | null = idx >= 0 ? (sourceParts?.[idx] as Obj) : source;
    const cells = summary.cells.filter((c) => c.part === name).map(withoutInapplicable).map(withinRange);
    const fileVariants = sp && isObject(sp.variants) ? Object.keys(sp.variants) : [];
    const variants: string[] = [];
    for (const v of fileVariants) if (cells.some((c) => c.variant === v)) variants.push(v);
    for (const c of cells) if (!variants.includes(c.variant)) variants.push(c.variant);
    const axes: string[] = [];
    for (const c of cells) for (const k of Object.keys(c.params)) if (!axes.includes(k)) axes.push(k);
    const axisValues: Record<string, unknown[]> = {};
    for (const a of axes) {
      axisValues[a] = orderValues(
        cells.map((c) => c.params[a]).filter((v) => v !== undefined),
        sourceAxisLists(source, idx >= 0 ? idx : null, a),
      );
    }
    const pos = (c: ReportCell): number[] => [
      ...axes.map((a) => (axisValues[a] ?? []).findIndex((v) => sameValue(v, c.params[a]))),
      variants.indexOf(c.variant),
    ];
    const sorted = [...cells].sort((a, b) => {
      const pa = pos(a);
      const pb = pos(b);
      for (let i = 0; i < pa.length; i++) if (pa[i] !== pb[i]) return (pa[i] as number) - (pb[i] as number);
      return 0;
    });
    const description = idx >= 0 ? (partTexts?.[idx] ?? (sp && typeof sp.description === 'string' ? sp.description : '')) : '';
    return {
      name,
      description,
      variants,
      axes,
      axisValues,
      cells: sorted,
      replications: Math.max(0, ...cells.map((c) => c.replications)),
      hints: withPlanTexts(mergeHints(top, partHints.get(name), name), ran, idx),
      variantOverrides: sp && isObject(sp.variants) ? (sp.variants as Obj) : {},
    };
  });

  const allVariants = parts.flatMap((p) => p.variants);
  return {
    name: summary.experiment,
    description: summary.description,
    seed: summary.seed,
    version: summary.version,
    parts,
    colors: variantColors(allVariants),
    hints: top,
    hintErrors: errors,
    run,
  };
}

/**
 * A cell without the figures that do not apply to it (`notApplicable`: amplification with no
 * operation measured...), which its results hold as 0: charts, tables and comparisons leave them
 * out, and tables and sentences say why (`notApplicableIn`).
 */
function withoutInapplicable(cell: ReportCell): ReportCell {
  const drop = Object.keys(cell.metrics).filter((k) => notApplicableIn(cell, k) !== null);
  if (drop.length === 0) return cell;
  const metrics = { ...cell.metrics };
  for (const k of drop) delete metrics[k];
  return { ...cell, metrics };
}

/**
 * A cell whose intervals lie within what each metric can take (`MetricInfo.range`). The sweep writes
 * them so (`boundedMetricStats`); this keeps a summary.json written before it from drawing a band
 * past a metric's range.
 */
function withinRange(cell: ReportCell): ReportCell {
  const metrics: ReportCell['metrics'] = {};
  for (const [k, s] of Object.entries(cell.metrics)) {
    const { min, max } = metricInfo(k).range;
    const [lo, hi] = s.ci95;
    metrics[k] = lo === null || hi === null ? s : { ...s, ci95: clipInterval([lo, hi], min, max) };
  }
  return { ...cell, metrics };
}

/** Why a metric does not apply to a cell (`no operations`), or null when it applies. */
export function notApplicableIn(cell: ReportCell, metric: string): string | null {
  return notApplicable(metric, (name) => metricMean(cell, name));
}

function rank(order: string[], name: string): number {
  const i = order.indexOf(name);
  return i < 0 ? order.length : i;
}

/** Whether a cell matches a selector (its part, variant, and every listed parameter by value). */
export function cellMatches(cell: ReportCell, sel: CellSelector): boolean {
  if (sel.part !== undefined && sel.part !== cell.part) return false;
  if (sel.variant !== undefined && sel.variant !== cell.variant) return false;
  for (const [k, v] of Object.entries(sel.params ?? {})) if (!sameValue(cell.params[k], v)) return false;
  return true;
}

/** The cells any selector matches, in the part's order. */
export function selectCells(part: ReportPart, selectors: CellSelector[]): ReportCell[] {
  return part.cells.filter((c) => selectors.some((s) => cellMatches(c, s)));
}

/**
 * The cells a report looks at closely (time series, layers, give-ups, the findings table): the
 * hinted cells, or every variant at the last sweep point (the largest values of numeric axes).
 */
export function focusCells(part: ReportPart): ReportCell[] {
  if (part.hints.cells) {
    const chosen = selectCells(part, part.hints.cells);
    if (chosen.length > 0) return chosen;
  }
  const last = part.cells[part.cells.length - 1];
  if (!last) return [];
  return part.cells.filter((c) => sameValue(c.params, last.params));
}

/** A cell's label in a chart: its variant, plus its parameters when the cells shown differ in them. */
export function cellLabel(cell: ReportCell, shown: readonly ReportCell[]): string {
  const paramsDiffer = shown.some((c) => !sameValue(c.params, cell.params));
  const variantsDiffer = shown.some((c) => c.variant !== cell.variant);
  const p = paramsInWords(cell.params);
  if (paramsDiffer && variantsDiffer) return p ? `${cell.variant} (${p})` : cell.variant;
  if (paramsDiffer) return p || cell.variant;
  return cell.variant;
}

/** The mean of a metric in a cell, or null when it was not measured. */
export function metricMean(cell: ReportCell, metric: string): number | null {
  const m = cell.metrics[metric]?.mean;
  return typeof m === 'number' && Number.isFinite(m) ? m : null;
}

/** Whether any cell of the list measured the metric. */
export function hasMetric(cells: readonly ReportCell[], metric: string): boolean {
  return cells.some((c) => metricMean(c, metric) !== null);
}
