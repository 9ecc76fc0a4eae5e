// Numbers of the plan that ran, quoted in an experiment's descriptions: `{{path}}` placeholders.
import { groupThousands } from '../policy/groupThousands.js';
import { formatPath, type PathSegment } from './Problem.js';

type JsonObject = Record<string, unknown>;

function isObject(value: unknown): value is JsonObject {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/**
 * A placeholder in a description: `{{path}}` or `{{path|unit}}`, the path a dotted path into the
 * plan that runs (docs/experiments.md, "Experiment files": "Numbers in descriptions").
 */
export const PLACEHOLDER_PATTERN = /\{\{\s*([^{}|]*?)\s*(?:\|\s*([^{}]*?)\s*)?\}\}/g;

/**
 * The units a placeholder may convert its value to: `s` prints milliseconds in seconds
 * (`{{scenario.workload.durationMs|s}} s` reads `60 s`). Without a unit the value is printed as it is.
 */
export const PLACEHOLDER_UNITS: Readonly<Record<string, number>> = { s: 1000 };

/** A number for people: digits grouped by three, no trailing zeros (`1,350`, `15.6`). */
function plainNumber(n: number): string {
  const text = String(n);
  return /e/i.test(text) ? text : groupThousands(text);
}

/** A value a placeholder may print: a number, a text, or a list of them (`1,150, 1,250 and 1,350`). */
function printed(value: unknown, per: number): string | null {
  if (typeof value === 'number' && Number.isFinite(value)) return plainNumber(value / per);
  if (typeof value === 'string' && per === 1) return value;
  if (Array.isArray(value) && value.length > 0) {
    const items = value.map((v) => printed(v, per));
    if (items.some((s) => s === null)) return null;
    const all = items as string[];
    return all.length === 1 ? (all[0] as string) : `${all.slice(0, -1).join(', ')} and ${all[all.length - 1] as string}`;
  }
  return null;
}

/**
 * The value at a dotted path. A key that itself holds dots (a variant's override path, a sweep
 * axis) is matched whole, the longest first; in a list of named objects (`parts`), a segment may
 * be an index or a name.
 */
export function valueAtDottedPath(from: unknown, path: string): { found: true; value: unknown } | { found: false } {
  const segments = path.split('.');
  let current: unknown = from;
  let i = 0;
  while (i < segments.length) {
    if (Array.isArray(current)) {
      const seg = segments[i] as string;
      const index = /^\d+$/.test(seg) ? Number(seg) : current.findIndex((e) => isObject(e) && e.name === seg);
      if (index < 0 || index >= current.length) return { found: false };
      current = current[index];
      i += 1;
      continue;
    }
    if (!isObject(current)) return { found: false };
    let matched = 0;
    for (let j = segments.length; j > i; j--) {
      const key = segments.slice(i, j).join('.');
      if (Object.prototype.hasOwnProperty.call(current, key)) {
        current = current[key];
        matched = j - i;
        break;
      }
    }
    if (matched === 0) return { found: false };
    i += matched;
  }
  return { found: true, value: current };
}

/** A description with its placeholders replaced, or the problems of those that name nothing printable. */
export type ResolvedText = { ok: true; text: string } | { ok: false; problems: string[] };

/**
 * Replaces the `{{path}}` placeholders of a description (at `location` in the file) by the values
 * of the plan that runs: each path is looked up in `scopes` in order (a part, then the file's
 * root), after quick mode and `--set` were applied, so a quick run's description quotes its own
 * times, rates and replications. A path that names nothing, or an object, or a unit not in
 * {@link PLACEHOLDER_UNITS}, is a problem naming the field.
 */
export function resolveDescription(text: string, scopes: readonly unknown[], location: readonly PathSegment[]): ResolvedText {
  const problems: string[] = [];
  const out = text.replace(PLACEHOLDER_PATTERN, (whole: string, path: string, unit: string | undefined) => {
    const where = formatPath(location);
    const per = unit === undefined ? 1 : PLACEHOLDER_UNITS[unit];
    if (per === undefined) {
      problems.push(`${where}: ${whole} has an unknown unit ${JSON.stringify(unit)} (known: ${Object.keys(PLACEHOLDER_UNITS).join(', ')})`);
      return whole;
    }
    for (const scope of scopes) {
      const hit = valueAtDottedPath(scope, path);
      if (!hit.found) continue;
      const shown = printed(hit.value, per);
      if (shown === null) {
        problems.push(`${where}: ${whole} must name a number${per === 1 ? ', a text' : ''} or a list of them in the plan (got ${Array.isArray(hit.value) ? 'a list of other values' : typeof hit.value})`);
        return whole;
      }
      return shown;
    }
    problems.push(`${where}: ${whole} names nothing in the plan that runs (paths are looked up in the description's part, then in the file's root, after quick mode and --set)`);
    return whole;
  });
  return problems.length > 0 ? { ok: false, problems } : { ok: true, text: out };
}

/** The texts of a report's charts that may quote the plan: each chart's `title` and `caption`. */
export const CHART_TEXT_FIELDS = ['title', 'caption'] as const;

/** The problems of the placeholders in the chart titles and captions of one `report` object (at `location`). */
function chartTextProblems(report: unknown, scopes: unknown[], location: PathSegment[]): string[] {
  if (!isObject(report) || !Array.isArray(report.charts)) return [];
  return report.charts.flatMap((chart: unknown, i) =>
    isObject(chart)
      ? CHART_TEXT_FIELDS.flatMap((field) => {
          const text = chart[field];
          if (typeof text !== 'string') return [];
          const r = resolveDescription(text, scopes, [...location, 'charts', i, field]);
          return r.ok ? [] : r.problems;
        })
      : [],
  );
}

/**
 * The descriptions of a patched root (quick mode and `--set` applied): the file's and each part's,
 * placeholders resolved, or every problem found (those of the charts' titles and captions too).
 */
export function resolveDescriptions(work: JsonObject): { ok: true; description: string; parts: string[] } | { ok: false; problems: string[] } {
  const problems: string[] = [];
  const one = (text: unknown, scopes: unknown[], location: PathSegment[]): string => {
    if (typeof text !== 'string') return '';
    const r = resolveDescription(text, scopes, location);
    if (r.ok) return r.text;
    problems.push(...r.problems);
    return text;
  };
  const description = one(work.description, [work], ['description']);
  problems.push(...chartTextProblems(work.report, [work], ['report']));
  const parts = Array.isArray(work.parts)
    ? work.parts.map((p: unknown, i) => {
        if (!isObject(p)) return '';
        problems.push(...chartTextProblems(p.report, [p, work], ['parts', i, 'report']));
        return one(p.description, [p, work], ['parts', i, 'description']);
      })
    : [];
  return problems.length > 0 ? { ok: false, problems } : { ok: true, description, parts };
}

/** A text with its placeholders resolved in `scopes`, or the text as written when one cannot be (validation reports it). */
export function resolvedOrAsWritten(text: string, scopes: readonly unknown[]): string {
  const r = resolveDescription(text, scopes, []);
  return r.ok ? r.text : text;
}
