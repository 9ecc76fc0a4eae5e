import { z } from 'zod';
import { isMetricName, METRIC_NAMES_TEXT } from './metrics.js';
import { isPanelName, PANEL_NAMES } from './specs/timeSeries.js';
import { CHART_KINDS, type ChartKind } from './types.js';

/**
 * Report hints: an optional `report` object at the top of an experiment file and in each of its
 * `parts`, overriding what a report shows. Shape:
 *
 * ```jsonc
 * "report": {
 *   "finding": "one line shown under the title and in reports/index.html",
 *   "claims": [                            // checked against the run's own data: supported, contradicted, not shown
 *     { "metric": "writes", "variants": ["full-jitter", "exponential"], "relation": "less", "params": { "workload.clients": 100 } }
 *   ],
 *   "cells": [{ "variant": "none", "params": { "workload.clients": 30 } }],  // default cells of the
 *                                          // series, clustering, amplification, give-ups, Pareto charts
 *   "findings": { "metrics": ["writes", "completionTimeMs"], "cells": [...] }, // the findings table
 *   "practicalDifference": { "goodputPerSec": 0.01 }, // per metric: the smallest difference called one
 *   "charts": [                            // replaces the automatic choice of charts, in this order
 *     { "kind": "metric", "metric": "writes", "x": "workload.clients", "logY": true, "caption": "..." },
 *     { "kind": "series", "cells": [...], "panels": ["arrivals", "goodput", "queue"] },
 *     { "kind": "clustering", "metric": "clustering.1ms.peakToMean", "x": "stack.0.policy.tickMs" },
 *     { "kind": "amplification" }, { "kind": "giveUps" },
 *     { "kind": "pareto", "work": "writes", "time": "completionTimeMs" }
 *   ]
 * }
 * ```
 */
export interface ReportHints {
  finding?: string;
  /** Claims the report checks against its own data (see {@link ClaimHint}). */
  claims?: ClaimHint[];
  cells?: CellSelector[];
  findings?: { metrics?: string[]; cells?: CellSelector[] };
  /**
   * Per metric, the smallest difference that sentences, captions and claims call a difference, as
   * a fraction of the mean compared against (default 5%: `DEFAULT_PRACTICAL_DIFFERENCE` of compare.ts);
   * smaller ones, even beyond noise, read as no practical difference.
   */
  practicalDifference?: Record<string, number>;
  charts?: ChartHint[];
}

/**
 * A claim a report checks against its own data, quick runs included: `metric` of variant a is
 * `less` than, `greater` than or `similar` to variant b (at every sweep point, or those matching
 * `params`), or of the first selected cell against the second (`cells`).
 */
export interface ClaimHint {
  /** The claim as a sentence (default: made from the fields). */
  text?: string;
  metric: string;
  variants?: [string, string];
  cells?: [CellSelector, CellSelector];
  /** Only the sweep points with these parameters. */
  params?: Record<string, unknown>;
  relation: 'less' | 'greater' | 'similar';
  /** `similar`: the largest difference that counts as similar, as a fraction of the second cell's mean (default: the interval includes 0). */
  tolerance?: number;
  /** The part it is about (a claim of the experiment's `report`; default: every part it matches). */
  part?: string;
}

/** Selects the cells whose part, variant and parameters match (parameters by value, any not listed). */
export interface CellSelector {
  part?: string;
  variant?: string;
  params?: Record<string, unknown>;
}

/** One chart a report must draw. */
export interface ChartHint {
  kind: ChartKind;
  title?: string;
  /** One sentence under the chart: what to look at. */
  caption?: string;
  /** `metric`: the metric on the y axis; `clustering`: the clustering metric (default: the smallest bin's peak-to-mean). */
  metric?: string;
  /** `metric`, `clustering`: the swept parameter on the x axis. */
  x?: string;
  logX?: boolean;
  logY?: boolean;
  /** `series`, `clustering`, `amplification`, `giveUps`, `pareto`, `graph`, `services` (one chart per cell), `cascade`: the cells shown. */
  cells?: CellSelector[];
  /**
   * `series`: the panels, among arrivals, goodput, queue, inFlight, busy, successes, failures, writes,
   * backends (a pool's healthy, down and ejected backends), hitRatio (a graph's lookaside caches:
   * hits / lookups per bin), `budget:<layer>:<kind>` (a layer's retry budget state) and the run's
   * series by their names in the results ({@link PANEL_NAMES}).
   */
  panels?: string[];
  /** `pareto`: the metric of total work (x) and of time (y). */
  work?: string;
  time?: string;
}

/** Where each chart option applies. */
const OPTION_KINDS: Record<string, readonly ChartKind[]> = {
  metric: ['metric', 'clustering'],
  x: ['metric', 'clustering'],
  logX: ['metric', 'clustering', 'pareto'],
  logY: ['metric', 'clustering', 'pareto'],
  cells: ['series', 'clustering', 'amplification', 'giveUps', 'pareto', 'graph', 'services', 'cascade'],
  panels: ['series'],
  work: ['pareto'],
  time: ['pareto'],
};

function describe(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (typeof value === 'number' && !Number.isFinite(value)) return String(value);
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

type Iss = { code?: string; input?: unknown; keys?: string[] };

function object<S extends z.core.$ZodLooseShape>(shape: S) {
  const known = Object.keys(shape).join(', ');
  return z.strictObject(shape, {
    error: (iss: Iss) =>
      iss.code === 'unrecognized_keys'
        ? `has unknown key${(iss.keys ?? []).length > 1 ? 's' : ''} ${(iss.keys ?? []).map((k) => JSON.stringify(k)).join(', ')} (known: ${known})`
        : `must be an object (got ${describe(iss.input)})`,
  });
}

const text = () => z.string({ error: (iss: Iss) => `must be a string (got ${describe(iss.input)})` });
const bool = () => z.boolean({ error: (iss: Iss) => `must be true or false (got ${describe(iss.input)})` });
const list = <T extends z.core.SomeType>(item: T) =>
  z.array(item, { error: (iss: Iss) => `must be a list (got ${describe(iss.input)})` });

const oneLine = () =>
  text().refine((s) => !/[\r\n]/.test(s) && s.trim().length > 0, {
    error: (iss: Iss) => `must be one non-empty line (got ${describe(iss.input)})`,
  });

const metric = () =>
  text().refine(isMetricName, { error: (iss: Iss) => `must be one of ${METRIC_NAMES_TEXT} (got ${describe(iss.input)})` });

const panel = () =>
  text().refine(isPanelName, { error: (iss: Iss) => `must be one of ${PANEL_NAMES.join(', ')} (got ${describe(iss.input)})` });

const cellSelector = object({
  part: text().optional(),
  variant: text().optional(),
  params: z.record(z.string(), z.unknown(), { error: (iss: Iss) => `must be an object of swept paths and values (got ${describe(iss.input)})` }).optional(),
});

const chartHint = object({
  kind: z.enum(CHART_KINDS, { error: (iss: Iss) => `must be one of ${CHART_KINDS.join(', ')} (got ${describe(iss.input)})` }),
  title: oneLine().optional(),
  caption: text().optional(),
  metric: metric().optional(),
  x: text().optional(),
  logX: bool().optional(),
  logY: bool().optional(),
  cells: list(cellSelector).optional(),
  panels: list(panel()).min(1, { error: 'must list at least one panel' }).optional(),
  work: metric().optional(),
  time: metric().optional(),
}).superRefine((chart, ctx) => {
  for (const [option, kinds] of Object.entries(OPTION_KINDS)) {
    if ((chart as Record<string, unknown>)[option] !== undefined && !kinds.includes(chart.kind)) {
      ctx.addIssue({ code: 'custom', path: [option], message: `does not apply to kind "${chart.kind}" (only to ${kinds.join(', ')})` });
    }
  }
  if (chart.kind === 'metric' && chart.metric === undefined) {
    ctx.addIssue({ code: 'custom', path: ['metric'], message: 'is required for kind "metric"' });
  }
});

const pair = <T extends z.core.SomeType>(item: T) =>
  z.tuple([item, item], { error: (iss: Iss) => `must be a list of two (got ${describe(iss.input)})` });

const claim = object({
  text: oneLine().optional(),
  metric: metric(),
  variants: pair(text()).optional(),
  cells: pair(cellSelector).optional(),
  params: z.record(z.string(), z.unknown(), { error: (iss: Iss) => `must be an object of swept paths and values (got ${describe(iss.input)})` }).optional(),
  relation: z.enum(['less', 'greater', 'similar'], { error: (iss: Iss) => `must be one of less, greater, similar (got ${describe(iss.input)})` }),
  tolerance: z.number({ error: (iss: Iss) => `must be a number (got ${describe(iss.input)})` }).min(0, { error: 'must be >= 0' }).optional(),
  part: text().optional(),
}).superRefine((c, ctx) => {
  if ((c.variants === undefined) === (c.cells === undefined)) {
    ctx.addIssue({ code: 'custom', path: ['variants'], message: 'a claim compares either two variants or two cells (give variants or cells, not both or neither)' });
  }
  if (c.tolerance !== undefined && c.relation !== 'similar') {
    ctx.addIssue({ code: 'custom', path: ['tolerance'], message: `applies only to relation "similar" (got "${c.relation}")` });
  }
});

/** The zod schema of report hints (see {@link ReportHints}). */
export const reportHintsSchema = object({
  finding: oneLine().optional(),
  claims: list(claim).optional(),
  cells: list(cellSelector).optional(),
  findings: object({
    metrics: list(metric()).min(1, { error: 'must list at least one metric' }).optional(),
    cells: list(cellSelector).optional(),
  }).optional(),
  practicalDifference: z
    .record(
      metric(),
      z
        .number({ error: (iss: Iss) => `must be a number (got ${describe(iss.input)})` })
        .min(0, { error: (iss: Iss) => `must be >= 0, a fraction of the mean compared against (got ${describe(iss.input)})` }),
      {
        error: (iss: Iss) =>
          iss.code === 'invalid_key'
            ? `must be one of ${METRIC_NAMES_TEXT} (got ${describe(iss.input)})`
            : `must be an object of metric names and fractions (got ${describe(iss.input)})`,
      },
    )
    .optional(),
  charts: list(chartHint).optional(),
});

/** The hints, or one message per problem with its path from the file's root (`report.charts.0.metric must be ...`). */
export type ParseHintsResult = { ok: true; hints: ReportHints } | { ok: false; errors: string[] };

/** Validate report hints found at `prefix` (e.g. `report` or `parts.1.report`). */
export function parseReportHints(value: unknown, prefix: string): ParseHintsResult {
  const r = reportHintsSchema.safeParse(value);
  if (r.success) return { ok: true, hints: r.data as ReportHints };
  const errors = r.error.issues.map((issue) => {
    const path = [prefix, ...issue.path.map(String)].filter((s) => s !== '').join('.');
    return `${path} ${issue.message}`;
  });
  return { ok: false, errors: [...new Set(errors)] };
}

/** The report hints of an experiment file: its top-level `report` and each part's, by part name. */
export interface SourceHints {
  top: ReportHints;
  parts: Map<string, ReportHints>;
  errors: string[];
}

/** Read the hints from an experiment file's parsed JSON; invalid hints are reported and left out. */
export function hintsFromSource(source: unknown): SourceHints {
  const out: SourceHints = { top: {}, parts: new Map(), errors: [] };
  if (!isObject(source)) return out;
  if (source.report !== undefined) {
    const r = parseReportHints(source.report, 'report');
    if (r.ok) out.top = r.hints;
    else out.errors.push(...r.errors);
  }
  if (Array.isArray(source.parts)) {
    source.parts.forEach((part: unknown, i) => {
      if (!isObject(part) || part.report === undefined) return;
      const r = parseReportHints(part.report, `parts.${i}.report`);
      if (!r.ok) out.errors.push(...r.errors);
      else if (typeof part.name === 'string') out.parts.set(part.name, r.hints);
    });
  }
  return out;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}
