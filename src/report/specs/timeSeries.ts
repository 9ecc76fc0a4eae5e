import { demandMs, type SimulationResults } from '../../model/results.js';
import type { Scenario } from '../../model/scenario.js';
import { SERIES_KEYS } from '../../sweep/runPlan.js';
import { colorScale, PALETTE, variantColors, WINDOW_COLOR, type VariantColors } from '../colors.js';
import { formatDuration } from '../../policy/formatDuration.js';
import type { TriggerWindow } from '../triggers.js';
import type { InterventionMark } from '../interventionMarks.js';
import type { VlSpec } from '../types.js';
import { axisTitle } from '../metrics.js';
import { legendOpacity, legendParam, MAX_CHART_BINS, topLevel, WIDTH } from './common.js';

export type TimeSeries = SimulationResults['timeSeries'];

/** One run's series in a chart, labelled (a variant, or a variant and its parameters). */
export interface SeriesRun {
  label: string;
  variant: string;
  series: TimeSeries;
  /** Its lookaside caches' lookups and hits per bin (the bins of `series`), each named as the chart names it ("db at app"). */
  caches?: readonly CacheSeries[];
}

/** One lookaside cache's counts per bin in a run (the results' `services.<service>.caches.<cache>.timeSeries`). */
export interface CacheSeries {
  name: string;
  lookups: readonly number[];
  hits: readonly number[];
}

/** What a time-series chart draws. */
export interface TimeSeriesInput {
  runs: readonly SeriesRun[];
  /** Shaded windows: spikes, ramps, capacity dips, outages, faults. */
  windows: readonly TriggerWindow[];
  colors: VariantColors;
  /** Panels, top to bottom (default: arrivals, goodput, queue, inFlight, busy, and any other series, empty ones left out). */
  panels?: readonly string[];
  /** Bins per series at most; longer series are merged into wider bins (default 800). */
  maxBins?: number;
  /** Where the x axis stops when a long drain is cut ({@link seriesFocus}); absent: the whole run. */
  focus?: SeriesFocus | null;
  /** Timed interventions and cache flushes: a vertical rule at each moment in every panel, its label in words in a legend of its own. */
  interventions?: readonly InterventionMark[];
  /** The legend title of those rules (default "Intervention"). */
  marksTitle?: string;
}

/** The colour and dashes of an intervention's rule. */
const RULE_COLOR = '#333333';
const RULE_DASH = [4, 3];

/** A time-series chart cut short: it shows [0, cutMs) of runs that go on to endMs. */
export interface SeriesFocus {
  /** When the runs' demand ended (the latest of them). */
  demandEndMs: number;
  cutMs: number;
  endMs: number;
}

/** A drain longer than the demand before it is cut, this share of the demand after its end still shown. */
const DRAIN_MARGIN = 0.1;

/**
 * When a run's demand ended, from its scenario and its series: the end of the time goodput is
 * measured over (`demandMs` of model/results.ts), with the completion time read from the series
 * (the end of the last bin in which an operation ended). Null without a scenario or a series.
 */
export function seriesDemandEndMs(sc: Pick<Scenario, 'workload'> | null, s: TimeSeries): number | null {
  const n = s.tMs.length;
  if (sc === null || n === 0) return null;
  const endMs = (s.tMs[n - 1] as number) + s.binMs;
  let last = -1;
  for (let i = 0; i < n; i++) if ((s.successes[i] ?? 0) > 0 || (s.failures[i] ?? 0) > 0) last = i;
  const completionMs = last < 0 ? 0 : (s.tMs[last] as number) + s.binMs;
  return demandMs(sc.workload, completionMs, endMs, 0);
}

/**
 * Where a time-series chart should stop: when the runs go on draining for longer than their demand
 * lasted (queues emptying, work for callers that gave up), the chart shows the demand and a tenth
 * of it after, so the drain does not squash the time that matters; null when nothing is cut.
 */
export function seriesFocus(runs: ReadonlyArray<{ series: TimeSeries; demandEndMs: number | null }>): SeriesFocus | null {
  if (runs.length === 0 || runs.some((r) => r.demandEndMs === null)) return null;
  const demandEndMs = Math.max(...runs.map((r) => r.demandEndMs as number));
  const endMs = Math.max(...runs.map((r) => (r.series.tMs[r.series.tMs.length - 1] ?? 0) + r.series.binMs));
  if (demandEndMs <= 0 || endMs - demandEndMs <= demandEndMs) return null;
  const binMs = Math.max(...runs.map((r) => r.series.binMs));
  const cutMs = Math.ceil((demandEndMs * (1 + DRAIN_MARGIN)) / binMs) * binMs;
  return cutMs < endMs ? { demandEndMs, cutMs, endMs } : null;
}

/** The sentence a cut chart carries: what it does not show. */
export function focusNote(f: SeriesFocus): string {
  return `The drain from ${formatDuration(f.cutMs)} to ${formatDuration(f.endMs)} is not shown (the demand ended at ${formatDuration(f.demandEndMs)}).`;
}

/** The bins of a series that start before `cutMs`. */
function cutSeries(s: FlatSeries, cutMs: number): FlatSeries {
  let n = 0;
  while (n < s.tMs.length && (s.tMs[n] as number) < cutMs) n++;
  if (n === s.tMs.length) return s;
  const values: Record<string, number[]> = {};
  for (const [k, v] of Object.entries(s.values)) values[k] = v.slice(0, n);
  return { binMs: s.binMs, tMs: s.tMs.slice(0, n), values };
}

/** Series counted per bin (merged bins add up, as a cache's lookups and hits do); the others are per-bin means or rates (merged bins average). */
const COUNTED = new Set(['arrivalsFirst', 'arrivalsRetry', 'successes', 'failures', 'writes']);
const isCounted = (key: string) => COUNTED.has(key) || key.startsWith(CACHE_LOOKUPS) || key.startsWith(CACHE_HITS);
/** The flat series of a cache's counts (`cacheLookups:<name>`, `cacheHits:<name>`) and of its hit ratio, computed from them once bins are merged (`hitRatio:<name>`). */
const CACHE_LOOKUPS = 'cacheLookups:';
const CACHE_HITS = 'cacheHits:';
const HIT_RATIO = 'hitRatio:';
/** Keys of the time-series object that are not series. */
const NOT_SERIES = new Set(['binMs', 'tMs']);

/** The default panels, in order. */
export const DEFAULT_PANELS = ['arrivals', 'goodput', 'queue', 'inFlight', 'busy'] as const;

/** A run's series by name: the numeric series as they are, each retry budget's state as `budget:<layer>:<kind>`, a pool's fleet counts as `fleet.<name>`, a cache's counts as `cacheLookups:<name>` and `cacheHits:<name>`. */
export interface FlatSeries {
  binMs: number;
  tMs: number[];
  values: Record<string, number[]>;
}

function isNumbers(v: unknown): v is number[] {
  return Array.isArray(v) && v.every((x) => typeof x === 'number');
}

/** Flatten a run's time series (and its caches' counts) into named numeric series (per-backend series of a pool are left out). */
export function flattenSeries(s: TimeSeries, caches: readonly CacheSeries[] = []): FlatSeries {
  const values: Record<string, number[]> = {};
  for (const c of caches) {
    values[`${CACHE_LOOKUPS}${c.name}`] = [...c.lookups];
    values[`${CACHE_HITS}${c.name}`] = [...c.hits];
  }
  for (const [k, v] of Object.entries(s as unknown as Record<string, unknown>)) {
    if (NOT_SERIES.has(k)) continue;
    if (isNumbers(v)) values[k] = v;
    else if (k === 'budgets' && Array.isArray(v)) {
      for (const b of v as Array<{ layer?: unknown; kind?: unknown; values?: unknown }>) {
        if (b && typeof b.layer === 'string' && isNumbers(b.values)) values[`budget:${b.layer}:${String(b.kind)}`] = b.values;
      }
    } else if (k === 'fleet' && v !== null && typeof v === 'object') {
      for (const [fk, fv] of Object.entries(v)) if (isNumbers(fv)) values[`fleet.${fk}`] = fv;
    }
  }
  return { binMs: s.binMs, tMs: s.tMs, values };
}

/**
 * The hit ratio of each cache of a run per bin, hits / lookups, beside its counts
 * (`hitRatio:<name>`); a bin without lookups has none (NaN, left out of the chart's rows).
 */
export function withHitRatios(s: FlatSeries): FlatSeries {
  const values = { ...s.values };
  for (const [k, lookups] of Object.entries(s.values)) {
    if (!k.startsWith(CACHE_LOOKUPS)) continue;
    const name = k.slice(CACHE_LOOKUPS.length);
    const hits = s.values[`${CACHE_HITS}${name}`] ?? [];
    values[`${HIT_RATIO}${name}`] = lookups.map((n, i) => (n > 0 ? (hits[i] ?? 0) / n : NaN));
  }
  return { ...s, values };
}

/** The caches of a run's flat series, by name, in their order. */
function cacheNames(s: FlatSeries): string[] {
  return Object.keys(s.values)
    .filter((k) => k.startsWith(CACHE_LOOKUPS))
    .map((k) => k.slice(CACHE_LOOKUPS.length));
}

interface PanelInfo {
  /** Series drawn (arrivals draws two). */
  keys: string[];
  title: (binMs: string) => string;
  /** Kind label of each key, told apart by dashes. */
  kinds?: string[];
  /** Legend title of the dashes. */
  kindsTitle?: string;
  /** A fixed domain of the y axis (a ratio's [0, 1]); absent: fitted by vega-lite. */
  yDomain?: [number, number];
}

const PANELS: Record<string, PanelInfo> = {
  arrivals: { keys: ['arrivalsFirst', 'arrivalsRetry'], kinds: ['first tries', 'retries'], kindsTitle: 'Leaf arrivals', title: (b) => `Leaf calls per ${b} bin` },
  goodput: { keys: ['goodputPerSec'], title: () => 'Goodput (ops/s)' },
  queue: { keys: ['queue'], title: () => 'Queue (requests)' },
  inFlight: { keys: ['inFlight'], title: () => 'In flight (ops)' },
  busy: { keys: ['busy'], title: () => 'Busy (workers)' },
  successes: { keys: ['successes'], title: (b) => `Successes per ${b} bin` },
  failures: { keys: ['failures'], title: (b) => `Failures per ${b} bin` },
  writes: { keys: ['writes'], title: (b) => `Writes per ${b} bin` },
  backends: {
    keys: ['fleet.healthyBackends', 'fleet.downBackends', 'fleet.ejectedBackends'],
    kinds: ['healthy', 'down', 'ejected'],
    kindsTitle: 'Backends',
    title: () => 'Backends (mean)',
  },
};

const DASHES = [[1, 0], [5, 3], [2, 2], [8, 2, 2, 2]];

/** The panel of caches' hit ratios (one series per cache, dashed apart when there are several). */
export const HIT_RATIO_PANEL = 'hitRatio';

/**
 * Every name a series chart's `panels` may list: the panels above, the caches' hit ratio, a layer's
 * retry budget (`budget:<layer>:<kind>`) and the run's series by their names in the results (the
 * sweep's series, a pool's backends counted as `fleet.<name>`).
 */
export const PANEL_NAMES: readonly string[] = [
  ...new Set([...Object.keys(PANELS), HIT_RATIO_PANEL, 'budget:<layer>:<kind>', ...SERIES_KEYS, ...(PANELS.backends as PanelInfo).keys]),
];

/** Whether a name is one a series chart can draw ({@link PANEL_NAMES}). */
export function isPanelName(name: string): boolean {
  return PANEL_NAMES.includes(name) || /^budget:.+:[^:]+$/.test(name);
}

/** The legend entry of the shaded windows. */
const SHADE_ENTRY = 'trigger window';

/** What a panel draws; the hit ratio's series are those of the caches named (dashed apart when there are several). */
function panelInfo(name: string, caches: readonly string[] = []): PanelInfo {
  if (name === HIT_RATIO_PANEL) {
    return {
      keys: caches.map((c) => `${HIT_RATIO}${c}`),
      ...(caches.length > 1 ? { kinds: [...caches], kindsTitle: 'Cache' } : {}),
      title: (b) => (caches.length === 1 ? `Hit ratio of ${caches[0]} per ${b} bin` : `Cache hit ratio per ${b} bin`),
      yDomain: [0, 1],
    };
  }
  const known = PANELS[name];
  if (known) return known;
  const budget = /^budget:(.*):([^:]*)$/.exec(name);
  if (budget) return { keys: [name], title: () => `Budget ${budget[2]} at ${budget[1]} (mean per bin)` };
  return { keys: [name], title: (b) => (COUNTED.has(name) ? `${name} (per ${b} bin)` : `${name} (mean per bin)`) };
}

/** Merge every `factor` consecutive bins: counts add up, means and rates average (over the bins present). */
export function coarsenSeries(s: FlatSeries, factor: number): FlatSeries {
  if (factor <= 1) return s;
  const n = Math.ceil(s.tMs.length / factor);
  const values: Record<string, number[]> = {};
  for (const [k, arr] of Object.entries(s.values)) {
    const merged: number[] = [];
    for (let i = 0; i < Math.ceil(arr.length / factor); i++) {
      const chunk = arr.slice(i * factor, (i + 1) * factor);
      const sum = chunk.reduce((a, b) => a + b, 0);
      merged.push(isCounted(k) ? sum : chunk.length > 0 ? sum / chunk.length : 0);
    }
    values[k] = merged;
  }
  return { binMs: s.binMs * factor, tMs: Array.from({ length: n }, (_, i) => (s.tMs[0] ?? 0) + i * s.binMs * factor), values };
}

/** The series a run has beyond those of the known panels (e.g. retry budgets), in their order. */
export function extraSeriesKeys(s: FlatSeries): string[] {
  const known = new Set(Object.values(PANELS).flatMap((p) => p.keys));
  return Object.keys(s.values).filter((k) => !known.has(k) && !k.startsWith('fleet.') && !k.startsWith(CACHE_LOOKUPS) && !k.startsWith(CACHE_HITS) && !k.startsWith(HIT_RATIO));
}

function seriesOf(s: FlatSeries, key: string): number[] | null {
  return s.values[key] ?? null;
}

/** The panels drawn by default: the default ones, writes, the caches' hit ratio after goodput (when a cache was looked up), backends and any other series (budgets), leaving out those all zero in every run. */
export function defaultPanels(runs: ReadonlyArray<{ series: FlatSeries }>): string[] {
  const names: string[] = [...DEFAULT_PANELS];
  if (runs.some((r) => seriesOf(r.series, 'writes'))) names.splice(1, 0, 'writes');
  const looked = runs.some((r) => cacheNames(r.series).some((c) => (seriesOf(r.series, `${CACHE_LOOKUPS}${c}`) ?? []).some((v) => v > 0)));
  if (looked) names.splice(names.indexOf('goodput') + 1, 0, HIT_RATIO_PANEL);
  if (runs.some((r) => Object.keys(r.series.values).some((k) => k.startsWith('fleet.')))) names.push('backends');
  for (const r of runs) for (const k of extraSeriesKeys(r.series)) if (!names.includes(k)) names.push(k);
  return names.filter(
    (p) => p === 'arrivals' || p === HIT_RATIO_PANEL || runs.some((r) => panelInfo(p).keys.some((k) => (seriesOf(r.series, k) ?? []).some((v) => v !== 0))),
  );
}

/** How bins are shown: in seconds when a run is 10 s or longer. */
function timeUnit(runs: ReadonlyArray<{ series: FlatSeries }>): { div: number; title: string } {
  const end = Math.max(0, ...runs.map((r) => (r.series.tMs[r.series.tMs.length - 1] ?? 0) + r.series.binMs));
  return end >= 10_000 ? { div: 1000, title: 'Time (s)' } : { div: 1, title: 'Time (ms)' };
}

/**
 * Binned time series of typical runs, one panel per measure (leaf arrivals split into first tries
 * (solid) and retries (dashed), goodput, and the time-weighted means per bin of the queue, the
 * operations in flight and the busy workers, and any other series such as budget tokens), one line per run coloured by variant, drawn as steps over the
 * bins, with the trigger windows shaded and a dashed rule at each timed intervention (labelled in
 * words in its legend) in every panel. Long runs are merged into at most
 * `maxBins` bins.
 */
export function timeSeriesSpec(input: TimeSeriesInput): VlSpec {
  const runs = shownRuns(input.runs, input.maxBins ?? MAX_CHART_BINS, input.focus ?? null);
  const caches = [...new Set(runs.flatMap((r) => cacheNames(r.series)))];
  const info = (p: string) => panelInfo(p, caches);
  const unit = timeUnit(runs);
  const byVariant = new Set(runs.map((r) => r.variant)).size === runs.length;
  const colorField = byVariant ? 'variant' : 'label';
  const scale = byVariant
    ? colorScale(input.colors, runs.map((r) => r.variant))
    : colorScale(variantColors(runs.map((r) => r.label)), runs.map((r) => r.label));
  const binMs = Math.max(...runs.map((r) => r.series.binMs), 0);
  const panels = (input.panels ? [...input.panels] : defaultPanels(runs)).filter((p) => runs.some((r) => info(p).keys.some((k) => seriesOf(r.series, k))));
  const fieldOf = seriesFields(panels, info);
  const rows = seriesRows(runs, fieldOf, unit.div);
  const end = Math.max(0, ...rows.map((r) => r.t as number));
  const windows = input.windows
    .map((w) => ({ from: w.fromMs / unit.div, to: Math.min(end, (w.toMs ?? Infinity) / unit.div), label: w.label }))
    .filter((w) => w.to > w.from && w.from < end)
    .map((w) => ({ ...w, shade: SHADE_ENTRY }));
  const marksTitle = input.marksTitle ?? 'Intervention';
  const marks = (input.interventions ?? []).map((m) => ({ at: Number((m.atMs / unit.div).toPrecision(12)), label: m.label })).filter((m) => m.at >= 0 && m.at <= end);
  // One run: its colour names nothing the title does not, so it is drawn in its colour without an encoding (no legend entry, nothing to select).
  const single = runs.length === 1;
  const tUnit = unit.div === 1000 ? 's' : 'ms';
  const ctx: PanelContext = {
    fieldOf,
    binTitle: formatDuration(binMs),
    colorField,
    single,
    color: single ? { value: scale.range[0] ?? PALETTE[0] } : { field: colorField, type: 'nominal', title: byVariant ? 'Variant' : 'Run', scale },
    x: { field: 't', type: 'quantitative', title: unit.title, scale: { domain: [0, end], nice: false } },
    tUnit,
    shade: windows.length > 0 ? () => shadeLayer(tUnit) : null,
    rule: marks.length > 0 ? () => ruleLayer(marks, marksTitle, tUnit) : null,
  };
  return {
    ...topLevel('Binned time series of typical runs, trigger windows shaded'),
    datasets: { series: rows, windows, ...(marks.length > 0 ? { interventions: marks } : {}) },
    vconcat: panels.map((p, i) => panelView(p, i, info(p), ctx)),
    spacing: 12,
    // Each panel with dashes (leaf arrivals, backends) has its own kinds.
    ...(panels.filter((p) => info(p).kinds).length > 1 ? { resolve: { scale: { strokeDash: 'independent' } } } : {}),
  };
}

/** The runs as drawn: flattened, cut at the focus, merged into at most `maxBins` bins, with their caches' hit ratios. */
function shownRuns(runs: readonly SeriesRun[], maxBins: number, focus: SeriesFocus | null): Array<Omit<SeriesRun, 'series'> & { series: FlatSeries }> {
  return runs.map((r) => {
    const flat = flattenSeries(r.series, r.caches);
    const shown = focus ? cutSeries(flat, focus.cutMs) : flat;
    return { ...r, series: withHitRatios(coarsenSeries(shown, Math.ceil(shown.tMs.length / maxBins))) };
  });
}

/**
 * The field of each series the panels draw, in the rows: its kind (arrivals) or `v<i>`. One row per
 * run and bin with every series as a field (the panels pick theirs) is a fraction of the size of one
 * row per value.
 */
function seriesFields(panels: readonly string[], info: (p: string) => PanelInfo): Map<string, string> {
  const fieldOf = new Map<string, string>();
  for (const p of panels) {
    const pi = info(p);
    pi.keys.forEach((k, ki) => fieldOf.set(k, pi.kinds?.[ki] ?? `v${fieldOf.size}`));
  }
  return fieldOf;
}

/** The rows of the chart: one per run and bin (times divided by `div`), plus one that ends the last bin's step. */
function seriesRows(runs: ReadonlyArray<{ label: string; variant: string; series: FlatSeries }>, fieldOf: ReadonlyMap<string, string>, div: number): Array<Record<string, unknown>> {
  const rows: Array<Record<string, unknown>> = [];
  for (const r of runs) {
    const s = r.series;
    const n = Math.max(0, ...[...fieldOf.keys()].map((k) => seriesOf(s, k)?.length ?? 0));
    // The extra row at the end of the last bin ends its step.
    for (let i = 0; i <= n; i++) {
      const at = i < n ? i : n - 1;
      const t = i < n ? (s.tMs[i] ?? i * s.binMs) : (s.tMs[n - 1] ?? (n - 1) * s.binMs) + s.binMs;
      // 12 significant digits: bin starts print without float noise (0.07, not 0.07000000000000001).
      const row: Record<string, unknown> = { label: r.label, variant: r.variant, t: Number((t / div).toPrecision(12)) };
      for (const [k, f] of fieldOf) {
        const v = seriesOf(s, k)?.[at];
        // A bin with no value (a cache's hit ratio in a bin without lookups) is left out.
        if (v !== undefined && !Number.isNaN(v)) row[f] = v;
      }
      rows.push(row);
    }
  }
  return rows;
}

/** What every panel of a chart shares. */
interface PanelContext {
  fieldOf: ReadonlyMap<string, string>;
  /** The bin's width in words, for the titles. */
  binTitle: string;
  colorField: string;
  /** One run, drawn without a colour encoding. */
  single: boolean;
  color: object;
  x: object;
  tUnit: string;
  /** Each panel's layer of the shaded windows, and of the interventions' rules (null: none). */
  shade: (() => object) | null;
  rule: (() => object) | null;
}

/** Panel `i` of the chart: its series as steps, between the shaded windows and the interventions' rules. */
function panelView(p: string, i: number, pi: PanelInfo, ctx: PanelContext): VlSpec {
  const yTitle = axisTitle(pi.title(ctx.binTitle), p === 'arrivals' ? 26 : 22);
  const kinds = pi.kinds;
  const field = kinds ? 'value' : (ctx.fieldOf.get(pi.keys[0] as string) as string);
  const line = {
    ...(i === 0 && !ctx.single ? { params: [legendParam(ctx.colorField)] } : {}),
    ...(kinds ? { transform: [{ fold: kinds, as: ['kind', 'value'] }] } : {}),
    mark: { type: 'line', interpolate: 'step-after', strokeWidth: 1.6 },
    encoding: {
      x: ctx.x,
      y: { field, type: 'quantitative', title: yTitle, ...(pi.yDomain ? { scale: { domain: pi.yDomain } } : {}) },
      color: ctx.color,
      ...(kinds
        ? { strokeDash: { field: 'kind', type: 'nominal', title: pi.kindsTitle ?? 'Series', scale: { domain: kinds, range: DASHES.slice(0, kinds.length) } }, detail: { field: 'kind', type: 'nominal' } }
        : {}),
      ...(ctx.single ? {} : { opacity: legendOpacity() }),
      tooltip: [
        { field: 'label', type: 'nominal', title: 'Run' },
        ...(kinds ? [{ field: 'kind', type: 'nominal', title: 'Series' }] : []),
        { field: 't', type: 'quantitative', title: `Bin start (${ctx.tUnit})` },
        { field, type: 'quantitative', title: Array.isArray(yTitle) ? yTitle.join(' ') : yTitle },
      ],
    },
  };
  return {
    width: WIDTH,
    height: p === 'arrivals' ? 170 : 120,
    data: { name: 'series' },
    layer: [...(ctx.shade ? [ctx.shade()] : []), line, ...(ctx.rule ? [ctx.rule()] : [])],
  };
}

/** The layer of the shaded trigger windows, with a legend entry of its own. */
function shadeLayer(tUnit: string): object {
  return {
    data: { name: 'windows' },
    mark: { type: 'rect', opacity: 0.14 },
    encoding: {
      x: { field: 'from', type: 'quantitative' },
      x2: { field: 'to' },
      // A legend entry of its own (fill, apart from the lines' colour), so the shading says what it is.
      fill: { field: 'shade', type: 'nominal', title: 'Shaded', scale: { domain: [SHADE_ENTRY], range: [WINDOW_COLOR] }, legend: { symbolOpacity: 0.35 } },
      tooltip: [
        { field: 'label', type: 'nominal', title: 'Trigger' },
        { field: 'from', type: 'quantitative', title: `From (${tUnit})` },
        { field: 'to', type: 'quantitative', title: `To (${tUnit})` },
      ],
    },
  };
}

/** The layer of the interventions' dashed rules, each labelled in words in the legend. */
function ruleLayer(marks: ReadonlyArray<{ label: string }>, marksTitle: string, tUnit: string): object {
  return {
    data: { name: 'interventions' },
    mark: { type: 'rule', strokeWidth: 1.4, strokeDash: RULE_DASH },
    encoding: {
      x: { field: 'at', type: 'quantitative' },
      // The legend says what each rule is, in words; every rule is drawn alike.
      stroke: {
        field: 'label',
        type: 'nominal',
        title: marksTitle,
        scale: { domain: marks.map((m) => m.label), range: marks.map(() => RULE_COLOR) },
        legend: { symbolType: 'stroke', symbolStrokeDash: RULE_DASH, labelLimit: 360 },
      },
      tooltip: [
        { field: 'label', type: 'nominal', title: marksTitle },
        { field: 'at', type: 'quantitative', title: `At (${tUnit})` },
      ],
    },
  };
}

/**
 * The caption of a typical run's time series when nobody wrote one: what to watch, inside the
 * shaded trigger windows when there are some; the retries (dashed) only when the chart draws
 * dashed lines (a graph's series have no leaf arrivals panel).
 */
export function seriesCaption(windows: boolean, dashed: boolean): string {
  if (windows) {
    return dashed
      ? 'Replication 0 of each cell, in bins: watch the retries (dashed) climb inside each shaded trigger window, and whether goodput and the queue recover after it ends.'
      : 'Replication 0 of each cell, in bins: watch what happens inside each shaded trigger window, and whether goodput and the queue recover after it ends.';
  }
  return dashed
    ? 'Replication 0 of each cell, in bins: compare the retries (dashed) with the first tries (solid), and watch whether the queue and the operations in flight drain.'
    : 'Replication 0 of each cell, in bins: watch whether goodput recovers and the queue and the operations in flight drain.';
}
