/**
 * The servicegraph series (the OpenTelemetry Collector's servicegraph connector, and Grafana Tempo's
 * metrics generator, which writes the same) gathered per edge. For each pair of a client span and
 * the server span it called, the connector counts one request on the edge labelled `client` and
 * `server` (and `connection_type`: "" for a plain call, `virtual_node` for a side it did not see,
 * whose name is then `user` for a client or the peer for a server, `messaging_system`, `database`),
 * counts it failed when either span's status is ERROR, and records the client span's and the server
 * span's durations in seconds in two histograms. A retried call is one request per attempt: each
 * attempt is a client span of its own. Source: open-telemetry/opentelemetry-collector-contrib,
 * connector/servicegraphconnector/connector.go (`aggregateMetrics`, `onExpire`,
 * `aggregateMetricsForEdge`; commit 0392d2bdc8463db6b819ff7450098ad237b947ab) and its README.
 */
import { describeValue } from '../policy/schema/describeValue.js';
import type { Sample } from './prometheusText.js';
import { ProblemList } from './TelemetryInputError.js';

/** The series names read, without their histogram suffixes; the connector's newer versions leave `_seconds` to the exporter, which adds it for the unit `s`. */
export const SERVICEGRAPH_SERIES = {
  requests: 'traces_service_graph_request_total',
  failed: 'traces_service_graph_request_failed_total',
  server: ['traces_service_graph_request_server_seconds', 'traces_service_graph_request_server'],
  client: ['traces_service_graph_request_client_seconds', 'traces_service_graph_request_client'],
} as const;

/** A duration histogram of one edge: its sum (seconds), count, and cumulative buckets by upper bound `le` (seconds). */
export interface DurationHistogram {
  sumSec: number;
  count: number;
  buckets: Array<{ le: number; count: number }>;
}

/** One edge of the servicegraph series over the window read. */
export interface EdgeSeries {
  client: string;
  server: string;
  connectionType: string;
  /** Requests on the edge (attempts: each retry is a request). */
  requests: number;
  failed: number;
  /** The server spans' durations. */
  serverTime: DurationHistogram;
  /** The client spans' durations (the caller's view, network included). */
  clientTime: DurationHistogram;
}

function emptyHistogram(): DurationHistogram {
  return { sumSec: 0, count: 0, buckets: [] };
}

/** The mean of a histogram in milliseconds, or undefined when it counted nothing. */
export function histogramMeanMs(h: DurationHistogram): number | undefined {
  return h.count > 0 ? (h.sumSec / h.count) * 1000 : undefined;
}

type Part = 'bucket' | 'sum' | 'count';

/** The histogram field of each side. */
const SIDE = { server: 'serverTime', client: 'clientTime' } as const;

/** Which series and part a sample name is: a count, a failed count, or a part of a histogram; undefined for other series. */
function seriesOf(name: string): { series: 'requests' | 'failed' } | { series: 'server' | 'client'; part: Part } | undefined {
  if (name === SERVICEGRAPH_SERIES.requests) return { series: 'requests' };
  if (name === SERVICEGRAPH_SERIES.failed) return { series: 'failed' };
  for (const side of ['server', 'client'] as const) {
    for (const base of SERVICEGRAPH_SERIES[side]) {
      for (const part of ['bucket', 'sum', 'count'] as const) if (name === `${base}_${part}`) return { series: side, part };
    }
  }
  return undefined;
}

/**
 * The edges of the servicegraph samples (`file` names them in messages); other series are ignored.
 * Samples of one edge that differ in other labels (the connector's extra dimensions, `failed`) are
 * added up. A request count labelled `failed="true"` counts as failed where no failed series is given.
 */
export function servicegraphEdges(samples: readonly Sample[], file: string): EdgeSeries[] {
  const problems = new ProblemList(file);
  const edges = new Map<string, EdgeSeries>();
  const buckets = new Map<string, Map<number, number>>();
  let failedSeries = false;
  const failedByLabel = new Map<string, number>();
  for (const s of samples) {
    const which = seriesOf(s.name);
    if (which === undefined) continue;
    const { client, server } = s.labels;
    if (client === undefined || server === undefined) {
      problems.add(s.where, `${s.name} must have the labels client and server (got ${describeValue(s.labels)})`);
      continue;
    }
    if (!Number.isFinite(s.value) || s.value < 0) {
      problems.add(s.where, `${s.name} must be a count or sum >= 0 (got ${describeValue(s.value)})`);
      continue;
    }
    const connectionType = s.labels.connection_type ?? '';
    const key = JSON.stringify([client, server, connectionType]);
    let e = edges.get(key);
    if (e === undefined) edges.set(key, (e = { client, server, connectionType, requests: 0, failed: 0, serverTime: emptyHistogram(), clientTime: emptyHistogram() }));
    if (which.series === 'requests') {
      e.requests += s.value;
      if (s.labels.failed === 'true') failedByLabel.set(key, (failedByLabel.get(key) ?? 0) + s.value);
      continue;
    }
    if (which.series === 'failed') {
      e.failed += s.value;
      failedSeries = true;
      continue;
    }
    if (!('part' in which)) continue;
    const histogram = e[SIDE[which.series]];
    if (which.part === 'sum') histogram.sumSec += s.value;
    else if (which.part === 'count') histogram.count += s.value;
    else {
      const le = s.labels.le === undefined ? undefined : s.labels.le === '+Inf' ? Infinity : Number(s.labels.le);
      if (le === undefined || Number.isNaN(le)) {
        problems.add(s.where, `${s.name} must have a label le, a number or +Inf (got ${describeValue(s.labels.le)})`);
        continue;
      }
      const bkey = `${key}/${which.series}`;
      let m = buckets.get(bkey);
      if (m === undefined) buckets.set(bkey, (m = new Map()));
      m.set(le, (m.get(le) ?? 0) + s.value);
    }
  }
  problems.done();
  if (!failedSeries) for (const [key, n] of failedByLabel) (edges.get(key) as EdgeSeries).failed = n;
  for (const [bkey, m] of buckets) {
    const [key, side] = [bkey.slice(0, bkey.lastIndexOf('/')), bkey.slice(bkey.lastIndexOf('/') + 1) as 'server' | 'client'];
    (edges.get(key) as EdgeSeries)[SIDE[side]].buckets = [...m].map(([le, count]) => ({ le, count })).sort((a, b) => a.le - b.le);
  }
  return [...edges.values()];
}
