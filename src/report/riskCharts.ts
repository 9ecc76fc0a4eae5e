// The charts of `retrystorm risk`'s report: the probability against the swept parameter (log y, 95%
// intervals, a line per variant), the level-crossing pyramid of a cell, and one example trajectory
// of a collapse over time with its threshold and start marked.
import { partRisk, type RiskResult } from '../sweep/riskSweep.js';
import { colorScale, variantColors } from './colors.js';
import { shownDurationUnit } from './format.js';
import { formatDuration } from '../policy/formatDuration.js';
import { paramsInWords, paramTitle } from './metrics.js';
import { HEIGHT, legendOpacity, legendParam, logAxis, numericScale, topLevel, WIDTH } from './specs/common.js';
import type { VlSpec } from './types.js';

/** One chart of the risk report. */
export interface RiskChart {
  id: string;
  title: string;
  caption: string;
  spec: VlSpec;
}

/** A cell of risk.json that has an estimate. */
export type EstimatedCell = Extract<RiskResult['cells'][number], { state: 'ok' }>;

/** How far below the smallest estimate drawn an interval's low end is cut on a log axis (a factor): an interval reaching 0, or far below every estimate, ends at the bottom of the axis. */
export const LOG_FLOOR_FACTOR = 10;

/** The series a cell belongs to: its variant, with its part when the plan has several. */
export function seriesOf(cell: { part: string; variant: string }, manyParts: boolean): string {
  return manyParts ? `${cell.part}: ${cell.variant}` : cell.variant;
}

/** The swept parameter the probability is drawn against: the first whose values are all numbers and take two or more values; null when none does. */
export function sweptParam(cells: readonly EstimatedCell[]): string | null {
  const names = [...new Set(cells.flatMap((c) => Object.keys(c.params)))];
  return names.find((n) => cells.every((c) => typeof c.params[n] === 'number') && new Set(cells.map((c) => c.params[n])).size >= 2) ?? null;
}

/** The cell a single-cell chart shows: the one with the highest estimated probability (the first by key among equals). */
export function worstCell(cells: readonly EstimatedCell[], has: (c: EstimatedCell) => boolean): EstimatedCell | null {
  let best: EstimatedCell | null = null;
  for (const c of cells) if (has(c) && (best === null || c.risk.probability > best.risk.probability)) best = c;
  return best;
}

/** A cell named for a caption: its series and parameters. */
export function cellName(c: EstimatedCell, manyParts: boolean): string {
  const params = paramsInWords(c.params);
  return [seriesOf(c, manyParts), ...(params === '' ? [] : [params])].join(', ');
}

/**
 * P(collapse) against the swept parameter (or each cell, when nothing numeric is swept) on a log
 * y axis, a line and points per variant, each with its 95% interval as a vertical rule; a cell
 * where no collapse was seen (p = 0) cannot sit on a log axis and is left out (the table lists it),
 * and an interval reaching 0 or below a tenth of the smallest estimate is drawn down to the bottom of the axis.
 */
export function probabilityChart(result: RiskResult, cells: readonly EstimatedCell[], manyParts: boolean): RiskChart | null {
  const seen = cells.filter((c) => c.risk.probability > 0);
  if (seen.length === 0) return null;
  const param = sweptParam(cells);
  const floor = Math.min(...seen.map((c) => c.risk.probability)) / LOG_FLOOR_FACTOR;
  const rows = seen.map((c) => ({
    series: seriesOf(c, manyParts),
    x: param === null ? cellName(c, manyParts) : (c.params[param] as number),
    p: c.risk.probability,
    lo: Math.max(c.risk.ci95[0], floor),
    hi: Math.max(c.risk.ci95[1], floor),
  }));
  const series = [...new Set(rows.map((r) => r.series))];
  const color = { field: 'series', type: 'nominal', title: 'Variant', scale: colorScale(variantColors(series), series) };
  const y = logAxis(rows.flatMap((r) => [r.p, r.lo, r.hi]));
  const x =
    param === null
      ? { field: 'x', type: 'nominal', title: 'Cell', sort: null }
      : (() => {
          const fit = numericScale(rows.map((r) => r.x as number));
          return { field: 'x', type: 'quantitative', title: paramTitle(param), scale: fit.scale, axis: fit.axis };
        })();
  const horizon = describeHorizon(result);
  const spec: VlSpec = {
    ...topLevel(`P(collapse within ${horizon})`),
    width: WIDTH,
    height: HEIGHT,
    data: { values: rows },
    encoding: { x, color, opacity: legendOpacity() },
    layer: [
      { mark: { type: 'rule', strokeWidth: 1.5 }, encoding: { y: { field: 'lo', type: 'quantitative', title: `P(collapse within ${horizon})`, scale: y.scale, axis: y.axis }, y2: { field: 'hi' } } },
      { mark: { type: 'line', point: { filled: true, size: 50 } }, params: [legendParam('series')], encoding: { y: { field: 'p', type: 'quantitative' }, tooltip: [{ field: 'series', title: 'Variant' }, { field: 'x', title: param === null ? 'cell' : paramTitle(param) }, { field: 'p', title: 'P', format: '.3~e' }, { field: 'lo', title: '95% low', format: '.3~e' }, { field: 'hi', title: '95% high', format: '.3~e' }] } },
    ],
  };
  const zeros = cells.length - seen.length;
  const left = zeros > 0 ? ` ${zeros} cell${zeros > 1 ? 's' : ''} where no collapse was seen (estimate 0) cannot be drawn on a log axis: the table gives their bound.` : '';
  const against = param === null ? 'in each cell' : `against ${paramTitle(param).toLowerCase()}`;
  return {
    id: 'risk-probability',
    title: `P(collapse within ${horizon}) ${against}`,
    caption: `The estimated probability that the collapse condition holds within the horizon, one line per variant (colour), each point with its 95% interval as a vertical line (an interval reaching 0, or below a tenth of the smallest estimate, is drawn to the bottom of the axis; the table gives its ends).${left}`,
    spec,
  };
}

/** The horizon of the cells in words: one duration, or the range. */
export function describeHorizon(result: Pick<RiskResult, 'cells'>): string {
  const hs = [...new Set(result.cells.map((c) => c.horizonMs))].sort((a, b) => a - b);
  const say = (ms: number) => (ms % 3_600_000 === 0 ? `${ms / 3_600_000} h` : ms % 60_000 === 0 ? `${ms / 60_000} min` : ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`);
  if (hs.length === 0) return 'the horizon';
  return hs.length === 1 ? say(hs[0] as number) : `${say(hs[0] as number)} to ${say(hs[hs.length - 1] as number)}`;
}

/**
 * The level-crossing pyramid of the cell with the highest probability among those estimated by
 * splitting: each importance level against the estimated probability of reaching it (log), the
 * collapse itself left to the caption.
 */
export function pyramidChart(result: RiskResult, cells: readonly EstimatedCell[], manyParts: boolean): RiskChart | null {
  const cell = worstCell(cells, (c) => c.risk.pyramid.some((l) => Number.isFinite(l.level) && l.probability > 0));
  if (cell === null) return null;
  const rows = cell.risk.pyramid.filter((l) => Number.isFinite(l.level) && l.probability > 0).map((l) => ({ level: l.level, p: l.probability, trajectories: l.trajectories, conditional: l.conditional }));
  const y = logAxis(rows.map((r) => r.p));
  const fit = numericScale(rows.map((r) => r.level), false);
  const metric = partRisk(result, cell.part).importance.metric;
  const spec: VlSpec = {
    ...topLevel('Level-crossing pyramid'),
    width: WIDTH,
    height: HEIGHT,
    data: { values: rows },
    mark: { type: 'line', point: { filled: true, size: 40 }, interpolate: 'step-after' },
    encoding: {
      x: { field: 'level', type: 'quantitative', title: `Importance level (${metric})`, scale: fit.scale, axis: fit.axis },
      y: { field: 'p', type: 'quantitative', title: 'P(reaching the level)', scale: y.scale, axis: y.axis },
      tooltip: [{ field: 'level' }, { field: 'p', title: 'P', format: '.3~e' }, { field: 'conditional', title: 'P(from the level below)', format: '.3~g' }, { field: 'trajectories' }],
    },
  };
  const collapse = cell.risk.pyramid.find((l) => !Number.isFinite(l.level));
  const end = collapse ? ` The collapse itself, the top of the pyramid, is reached with probability ${collapse.probability.toExponential(2)}.` : '';
  return {
    id: 'risk-pyramid',
    title: `How far trajectories climb: ${cellName(cell, manyParts)}`,
    caption: `The cell with the highest estimate: each importance level (${metric}) splitting placed, against the estimated probability that a trajectory reaches it within the horizon, on a log axis; each step down is the conditional probability of climbing one more level.${end}`,
    spec,
  };
}

/** One panel of the example: a metric over time (in `unit`), linear, with the marks given. */
function panel(rows: Array<Record<string, unknown>>, field: string, title: string, unit: string, marks: VlSpec[]): VlSpec {
  return {
    width: WIDTH,
    height: 180,
    layer: [
      { data: { values: rows }, mark: { type: 'line', interpolate: 'step-after' }, encoding: { x: { field: 't', type: 'quantitative', title: `Time (${unit})`, scale: { nice: false } }, y: { field, type: 'quantitative', title, scale: { zero: false } } } },
      ...marks,
    ],
  };
}

/**
 * One trajectory that collapsed (of the cell with the highest estimate that kept one), as the check
 * grid saw it: the importance and, below, the collapse metric over time, with the threshold as a
 * dashed horizontal line and the collapse start as a vertical line. One panel when the two are the
 * same probe.
 */
export function exampleChart(result: RiskResult, cells: readonly EstimatedCell[], manyParts: boolean): RiskChart | null {
  const cell = worstCell(cells, (c) => c.risk.example !== null && c.risk.example.tMs.length > 0);
  const ex = cell?.risk.example;
  if (!cell || !ex) return null;
  const { importance, collapse } = partRisk(result, cell.part);
  const u = shownDurationUnit(Math.max(...ex.tMs));
  const rows = ex.tMs.map((t, i) => ({ t: t / u.ms, importance: ex.importance[i], collapse: ex.collapseMetric[i] }));
  const threshold = collapse.above ?? collapse.below;
  const marks: VlSpec[] = [];
  if (threshold !== undefined) marks.push({ data: { values: [{ threshold }] }, mark: { type: 'rule', strokeDash: [6, 4], color: '#444444' }, encoding: { y: { field: 'threshold', type: 'quantitative' } } });
  const startS = Number.isFinite(ex.collapseAtMs) ? ex.collapseAtMs / u.ms : null;
  if (startS !== null) marks.push({ data: { values: [{ start: startS }] }, mark: { type: 'rule', color: '#e45756', strokeWidth: 2 }, encoding: { x: { field: 'start', type: 'quantitative' } } });
  const same = importance.metric === collapse.metric && importance.service === collapse.service && importance.cache === collapse.cache && importance.windowMs === collapse.windowMs;
  const bottom = panel(rows, 'collapse', `Collapse metric (${collapse.metric})`, u.unit, marks);
  const spec: VlSpec = same ? { ...topLevel('An example collapse'), ...bottom } : { ...topLevel('An example collapse'), vconcat: [panel(rows, 'importance', `Importance (${importance.metric})`, u.unit, startS === null ? [] : [marks[marks.length - 1] as VlSpec]), bottom] };
  const cond = `${collapse.metric} ${collapse.above !== undefined ? `above ${collapse.above}` : `below ${collapse.below}`}${collapse.forMs > 0 ? ` for ${formatDuration(collapse.forMs)}` : ''}`;
  return {
    id: 'risk-example',
    title: `An example collapse: ${cellName(cell, manyParts)}`,
    caption: `One trajectory that collapsed, as the check grid saw it: ${same ? `${collapse.metric}` : `the importance (${importance.metric}, top) and the collapse metric (bottom)`} over time. The dashed horizontal line is the threshold (${cond}); the vertical line is where the collapse began to hold without a break.`,
    spec,
  };
}
