import { distinctInterventionMarks, flushMarks } from './interventionMarks.js';
import { metricInfo, paramLabel } from './metrics.js';
import { cellLabel, focusCells, type ReportModel, type ReportPart } from './reportModel.js';
import {
  cacheSeries,
  chooseCharts,
  drawnGraph,
  hasServiceSeries,
  inNumericOrder,
  joinSentences,
  metricCaption,
  requestsFromHints,
  slug,
  where,
  type ChartRequest,
} from './selectCharts.js';
import { amplificationSpec } from './specs/amplification.js';
import { cascadeSpec } from './specs/cascade.js';
import { clusteringSpec } from './specs/clustering.js';
import { MAX_SERIES } from './specs/common.js';
import { encodedChannels } from './specs/encodings.js';
import { giveUpsSpec } from './specs/giveUps.js';
import { graphDrawingSpec } from './specs/graphDrawing.js';
import { metricPoints, metricVsParamSpec, seriesPanels } from './specs/metricVsParam.js';
import { paretoSpec } from './specs/pareto.js';
import { serviceSeriesSpec } from './specs/serviceSeries.js';
import { focusNote, seriesCaption, seriesDemandEndMs, seriesFocus, timeSeriesSpec } from './specs/timeSeries.js';
import { distinctWindows, graphTriggerWindows } from './triggers.js';
import type { ChartKind, ReportCell, ReportChart } from './types.js';

/** A chart as built: its spec, title and caption, with its id, kind and part. */
type BuiltChart = Omit<ReportChart, 'id'> & { id: string };

/** What every chart's builder reads: the report, the part, the request, the cells drawn (labelled, in numeric order) and what they share. */
interface ChartContext {
  model: ReportModel;
  part: ReportPart;
  req: ChartRequest;
  cells: ReportCell[];
  labelled: Array<{ label: string; cell: ReportCell }>;
  colors: ReportModel['colors'];
  /** The replications in words, for captions. */
  repText: string;
  /** The swept values of the x axis in the file's order. */
  xOrder: unknown[] | undefined;
  log: { logX?: boolean; logY?: boolean };
  base: { id: string; kind: ChartKind; part: string };
}

/** The 'metric' chart: a metric against a swept parameter, a line per series (split into panels of at most MAX_SERIES). */
function metricChart(c: ChartContext): BuiltChart {
  const { part, req, repText, xOrder, log, base, colors } = c;
  const metric = req.metric as string;
  const x = req.x as string;
  const info = metricInfo(metric);
  const series = new Set(metricPoints(part.cells, metric, x).map((p) => p.series)).size;
  const split = seriesPanels(Array.from({ length: series }, (_, i) => String(i))).length;
  const spec = metricVsParamSpec({ cells: part.cells, metric, x, colors, ...(xOrder ? { xOrder } : {}), ...log });
  return {
    ...base,
    title: req.title ?? `${info.title} against ${paramLabel(x)}`,
    caption: joinSentences(req.caption ?? metricCaption(part, metric, x, repText, spec), split > 1 ? `The ${series} series are drawn in ${split} panels of at most ${MAX_SERIES} each, on the same axes.` : ''),
    spec,
  };
}

/** The 'series' chart: the time series of a typical run per cell, with the windows and the interventions marked. */
function seriesChart(c: ChartContext): BuiltChart {
  const { req, cells, labelled, base, colors } = c;
  const withSeries = labelled.filter((l) => l.cell.timeSeries?.typical);
  const dropped = withSeries.length - MAX_SERIES;
  const runs = withSeries
    .slice(0, MAX_SERIES)
    .map((l) => ({ label: l.label, variant: l.cell.variant, series: l.cell.timeSeries.typical as NonNullable<ReportCell['timeSeries']['typical']>, caches: cacheSeries(l.cell) }));
  const scenarios = cells.map((c) => c.scenario).filter((s): s is NonNullable<typeof s> => s !== undefined && s !== null);
  const windows = distinctWindows(scenarios);
  const interventions = distinctInterventionMarks(scenarios);
  const flushes = distinctInterventionMarks(scenarios, flushMarks);
  const marks = [...flushes, ...interventions].sort((a, b) => a.atMs - b.atMs);
  const marked = flushes.length === 0 ? 'the timed interventions' : interventions.length === 0 ? 'the cache flushes' : 'the cache flushes and the timed interventions';
  const scenarioOf = new Map(labelled.map((l) => [l.label, l.cell.scenario ?? null]));
  const focus = seriesFocus(runs.map((r) => ({ series: r.series, demandEndMs: seriesDemandEndMs(scenarioOf.get(r.label) ?? null, r.series) })));
  const spec = timeSeriesSpec({
    runs,
    windows,
    colors,
    focus,
    ...(marks.length > 0 ? { interventions: marks, marksTitle: flushes.length === 0 ? 'Intervention' : interventions.length === 0 ? 'Cache flush' : 'Flush or intervention' } : {}),
    ...(req.panels ? { panels: req.panels } : {}),
  });
  const caption = req.caption ?? seriesCaption(windows.length > 0, encodedChannels(spec).some((c) => c.channel === 'strokeDash'));
  return {
    ...base,
    title: req.title ?? `Time series of a typical run${where(cells)}`,
    caption: joinSentences(
      joinSentences(focus ? `${caption} ${focusNote(focus)}` : caption, marks.length > 0 ? `Dashed vertical rules mark ${marked} (their legend says what each does).` : ''),
      dropped > 0 ? `Only the first ${MAX_SERIES} of these ${withSeries.length} runs are drawn (${dropped} left out: ${withSeries.slice(MAX_SERIES).map((l) => l.label).join(', ')}); their numbers are in the findings table.` : '',
    ),
    spec,
  };
}

/** The 'clustering' chart: the clustering of leaf arrivals: a typical run's bins and the clustering metric. */
function clusteringChart(c: ChartContext): BuiltChart {
  const { part, req, cells, labelled, xOrder, log, base, colors } = c;
  const runs = labelled.filter((l) => l.cell.timeSeries?.typical).map((l) => ({ label: l.label, variant: l.cell.variant, series: l.cell.timeSeries.typical as NonNullable<ReportCell['timeSeries']['typical']>, cell: l.cell }));
  const metric = req.metric as string;
  return {
    ...base,
    title: req.title ?? (req.x ? `Clustering of leaf arrivals against ${paramLabel(req.x)}` : `Clustering of leaf arrivals${where(cells)}`),
    caption:
      req.caption ??
      `Top: leaf arrivals per bin in a typical run, where tall isolated bars are retries arriving in lockstep; bottom: ${metricInfo(metric).title.toLowerCase()} (1 is perfectly even), ${req.x ? `against ${paramLabel(req.x).toLowerCase()}` : 'per run'}.`,
    spec: clusteringSpec({ runs, cells: part.cells, metric, colors, ...(req.x ? { x: req.x } : {}), ...(xOrder ? { xOrder } : {}), ...log }),
  };
}

/** The 'amplification' chart: the attempts per operation at each layer, first tries and retries. */
function amplificationChart(c: ChartContext): BuiltChart {
  const { req, cells, labelled, base, colors } = c;
  return {
    ...base,
    title: req.title ?? `Attempts per operation at each layer${where(cells)}`,
    caption:
      req.caption ??
      'Solid segments are first tries and light ones retries; the bottom layer\'s bar is the leaf calls per operation, so look at how much each retrying layer multiplies the calls below it.',
    spec: amplificationSpec({ cells: labelled, colors }),
  };
}

/** The 'pareto' chart: total work against time, with the non-dominated front. */
function paretoChart(c: ChartContext): BuiltChart {
  const { req, cells, labelled, log, base, colors } = c;
  const work = req.work as string;
  const time = req.time as string;
  return {
    ...base,
    title: req.title ?? `${metricInfo(work).title} against ${metricInfo(time).title.toLowerCase()}${where(cells)}`,
    caption:
      req.caption ??
      'Lower left is better (less work, sooner): the dashed line joins the points that no other point beats on both axes, and a point far above or right of it is dominated.',
    spec: paretoSpec({ cells: labelled, colors, work, time, ...log }),
  };
}

/** The 'graph' chart: the drawing of a graph cell: edges labelled with their calls per operation, services by utilisation. */
function graphChart(c: ChartContext): BuiltChart {
  const { part, req, cells, base } = c;
  const cell = cells[0] as ReportCell;
  const drawn = drawnGraph(cell);
  const label = cells.length > 0 && part.cells.length > 1 ? ` (${cellLabel(cell, part.cells)})` : '';
  return {
    ...base,
    title: req.title ?? `Where the calls went${label}`,
    caption:
      req.caption ??
      'Each line is an edge, from caller to callee, labelled with its calls per operation (hover for the numbers); a service is filled by its mean utilisation (deeper red is busier; grey: not measured) and outlined in red when a backend crashed. Compare the labels along a path: where they grow, a tier retries.',
    spec: graphDrawingSpec(drawn ?? { nodes: [], edges: [] }),
  };
}

/** The 'services' chart: each service of a graph over time (utilisation, error rate, arrivals). */
function servicesChart(c: ChartContext): BuiltChart {
  const { part, req, cells, base } = c;
  const cell = cells[0] as ReportCell;
  const label = part.cells.length > 1 ? ` (${cellLabel(cell, part.cells)})` : '';
  const binMs = cell.timeSeries?.typical?.binMs ?? cell.scenario?.metrics?.timeSeriesBinMs ?? 1000;
  return {
    ...base,
    title: req.title ?? `Each service over time${label}`,
    caption:
      req.caption ??
      'Replication 0, one line per service: utilisation (of the workers available), error rate (failed answers over answers) and arrivals (retries dashed); a trigger window is shaded. The cascade timeline calls a second in trouble at utilisation 0.9 or an error rate of 0.5: see which service crosses first.',
    spec: serviceSeriesSpec({ services: cell.graph?.services ?? [], binMs, windows: cell.scenario ? graphTriggerWindows(cell.scenario) : [] }),
  };
}

/** The 'cascade' chart: the cascade timeline: when each service got in trouble, recovered or crashed. */
function cascadeChart(c: ChartContext): BuiltChart {
  const { req, cells, labelled, base } = c;
  return {
    ...base,
    title: req.title ?? `Cascade timeline${where(cells)}`,
    caption:
      req.caption ??
      'Replication 0 of each cell: a bar runs from the first 1 s bin in which a service was in trouble (utilisation at least 0.9 or an error rate at least 0.5) to the start of the 30 s it then stayed out of trouble (orange), or to the end of the run (red: still in trouble at the end); a black tick marks a first crash. Rows are in the order the services got in trouble.',
    spec: cascadeSpec({
      runs: labelled
        .filter((l) => hasServiceSeries(l.cell))
        .map((l) => {
          const ts = l.cell.timeSeries?.typical;
          return { label: l.label, events: l.cell.graph?.cascade ?? [], endMs: ts ? ts.tMs.length * ts.binMs : 0 };
        }),
    }),
  };
}

/** The 'giveUps' chart: how the operations that did not succeed ended. */
function giveUpsChart(c: ChartContext): BuiltChart {
  const { req, cells, labelled, base } = c;
  return {
    ...base,
    title: req.title ?? `How the operations that did not succeed ended${where(cells)}`,
    caption: req.caption ?? 'Each bar stacks the operations that did not succeed by the reason they ended: compare which limit each variant runs into first.',
    spec: giveUpsSpec({ cells: labelled }),
  };
}

/** The builder of each chart kind (a Record, so a new kind without its builder does not compile). */
const CHART_BUILDERS: Record<ChartKind, (c: ChartContext) => BuiltChart> = {
  metric: metricChart,
  series: seriesChart,
  clustering: clusteringChart,
  amplification: amplificationChart,
  pareto: paretoChart,
  graph: graphChart,
  services: servicesChart,
  cascade: cascadeChart,
  giveUps: giveUpsChart,
};

/** Build one chart: its spec, title and the sentence saying what to look at. */
export function buildChart(model: ReportModel, part: ReportPart, req: ChartRequest, id: string): Omit<ReportChart, 'id'> & { id: string } {
  const colors = model.colors;
  const cells = req.cells ?? focusCells(part);
  const labelled = inNumericOrder(part, cells).map((cell) => ({ label: cellLabel(cell, cells), cell }));
  const reps = part.replications;
  const repText = reps > 1 ? `${reps} replications` : 'a single replication (no interval)';
  const xOrder = req.x ? part.axisValues[req.x] : undefined;
  const log = { ...(req.logX !== undefined ? { logX: req.logX } : {}), ...(req.logY !== undefined ? { logY: req.logY } : {}) };
  const base = { id, kind: req.kind, part: part.name };
  return CHART_BUILDERS[req.kind]({ model, part, req, cells, labelled, colors, repText, xOrder, log, base });
}

/** Every chart of a report: each part's hinted or chosen charts, with unique ids. */
export function buildCharts(model: ReportModel, warn: (m: string) => void = () => {}): ReportChart[] {
  const charts: ReportChart[] = [];
  const multi = model.parts.length > 1;
  for (const part of model.parts) {
    const requests = part.hints.charts ? requestsFromHints(part, part.hints.charts, warn) : chooseCharts(part);
    requests.forEach((req, i) => {
      const what = req.metric ?? (req.kind === 'pareto' ? `${req.work}-${req.time}` : '');
      const id = slug(`${multi ? `${part.name}-` : ''}${String(i + 1).padStart(2, '0')}-${req.kind}${what ? `-${what}` : ''}`);
      charts.push(buildChart(model, part, req, id));
    });
  }
  return charts;
}
