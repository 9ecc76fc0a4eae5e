/**
 * Answers of the Prometheus HTTP query API (`/api/v1/query` and `/api/v1/query_range`): `{ "status":
 * "success", "data": { "resultType": "vector" | "matrix", "result": [...] } }`, or a list of such
 * answers (one per query). A vector's samples are taken as they are (counts over the window the
 * query names: `--window`); a matrix's series are counters read over the range: the increase from
 * the first point to the last, a drop counted as a counter reset (the new value is then the increase
 * since the reset, as Prometheus's `increase` treats it), and the window is the range the points
 * span. Source: prometheus/docs, content/docs/prometheus/latest/querying/api.md.
 */
import { JsonReader, parseTelemetryJson } from './JsonReader.js';
import { parseSampleValue, type Sample } from './prometheusText.js';
import { ProblemList } from './TelemetryInputError.js';

type Path = (string | number)[];

/** The samples of a query-API answer, and the window a matrix spans (seconds), if it is one. */
export interface QuerySamples {
  samples: Sample[];
  /** The seconds from the earliest to the latest point of the matrices read; undefined for vectors only. */
  windowSec: number | undefined;
}

/** The increase of a counter over its points, resets counted (a drop starts the count again from 0). */
export function counterIncrease(values: readonly number[]): number {
  let total = 0;
  for (let i = 1; i < values.length; i++) {
    const prev = values[i - 1] as number;
    const cur = values[i] as number;
    total += cur >= prev ? cur - prev : cur;
  }
  return total;
}

function point(r: JsonReader, v: unknown, path: Path): [number, number] | undefined {
  const pair = r.array(v, path);
  if (pair === undefined) return undefined;
  const t = pair[0];
  const x = typeof pair[1] === 'string' ? parseSampleValue(pair[1]) : undefined;
  if (pair.length !== 2 || typeof t !== 'number' || !Number.isFinite(t) || x === undefined) {
    return r.bad(path, 'must be a point [unix seconds, "value"]', v);
  }
  return [t, x];
}

function labelsOf(r: JsonReader, v: unknown, path: Path): Record<string, string> | undefined {
  const o = r.object(v, path);
  if (o === undefined) return undefined;
  // No prototype: a label may be named "constructor" or "__proto__".
  const labels = Object.create(null) as Record<string, string>;
  for (const [k, x] of Object.entries(o)) {
    if (typeof x !== 'string') return r.bad([...path, k], 'must be a string (a label value)', x);
    labels[k] = x;
  }
  return labels;
}

/** The samples of a query-API answer's text (`file` names it in messages), or a TelemetryInputError naming each wrong field by path. */
export function parsePrometheusQuery(text: string, file: string): QuerySamples {
  const doc = parseTelemetryJson(text, file);
  const problems = new ProblemList(file);
  const r = new JsonReader(problems);
  const samples: Sample[] = [];
  let first = Infinity;
  let last = -Infinity;
  const answers = Array.isArray(doc) ? doc : [doc];
  answers.forEach((answer, a) => {
    const base: Path = Array.isArray(doc) ? [a] : [];
    const o = r.object(answer, base);
    if (o === undefined) return;
    if (o.status !== 'success') return void r.bad([...base, 'status'], 'must be "success" (the query failed or this is not a query-API answer)', o.status);
    const data = r.object(o.data, [...base, 'data']);
    if (data === undefined) return;
    const type = data.resultType;
    if (type !== 'vector' && type !== 'matrix') return void r.bad([...base, 'data', 'resultType'], 'must be "vector" or "matrix"', type);
    (r.array(data.result, [...base, 'data', 'result']) ?? []).forEach((series, i) => {
      const at: Path = [...base, 'data', 'result', i];
      const so = r.object(series, at);
      if (so === undefined) return;
      const labels = labelsOf(r, so.metric, [...at, 'metric']);
      if (labels === undefined) return;
      const { __name__: name, ...rest } = labels;
      if (name === undefined) {
        return void r.bad([...at, 'metric', '__name__'], 'must name the series (a query such as increase(...) drops the name: query the series by name over a range with query_range instead, docs/telemetry.md)', undefined);
      }
      const where = `${at.join('.')}`;
      if (type === 'vector') {
        const p = point(r, so.value, [...at, 'value']);
        if (p !== undefined) samples.push({ name, labels: rest, value: p[1], where });
        return;
      }
      const pts = (r.array(so.values, [...at, 'values']) ?? []).map((v, k) => point(r, v, [...at, 'values', k]));
      if (pts.some((p) => p === undefined) || pts.length === 0) return;
      const ok = pts as [number, number][];
      first = Math.min(first, (ok[0] as [number, number])[0]);
      last = Math.max(last, (ok[ok.length - 1] as [number, number])[0]);
      samples.push({ name, labels: rest, value: counterIncrease(ok.map((p) => p[1])), where });
    });
  });
  problems.done();
  return { samples, windowSec: last > first ? last - first : undefined };
}
