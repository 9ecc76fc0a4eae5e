/**
 * The servicegraph series of spans computed as the OpenTelemetry Collector's servicegraph connector
 * does (open-telemetry/opentelemetry-collector-contrib, connector/servicegraphconnector/connector.go
 * at 0392d2bdc8463db6b819ff7450098ad237b947ab: `aggregateMetrics` pairs a client span with the
 * server span whose parent it is; the edge counts one request, failed when either span's status is
 * ERROR, and records the client span's and the server span's durations in seconds; `onExpire`
 * gives a server span without a client the client `user`, and a client span without a server the
 * server named by its peer attribute), written as the Prometheus text exposition. Each duration
 * histogram has the connector's default buckets (`defaultLatencyHistogramBuckets` in connector.go:
 * 2, 4, 6, 8, 10, 50, 100, 200, 400, 800, 1000, 1400, 2000, 5000, 10000, 15000 ms, in seconds), a
 * duration counted in the first bucket whose bound is at least it, and `+Inf`.
 */
import type { Span } from '../../src/telemetry/index.js';

/** The connector's default histogram bounds, in seconds. */
export const CONNECTOR_BUCKETS_SEC = [0.002, 0.004, 0.006, 0.008, 0.01, 0.05, 0.1, 0.2, 0.4, 0.8, 1, 1.4, 2, 5, 10, 15] as const;

interface Edge {
  requests: number;
  failed: number;
  clientSec: number;
  serverSec: number;
  /** Per bucket of {@link CONNECTOR_BUCKETS_SEC} (and +Inf last), the durations counted in it (not cumulative). */
  clientBuckets: number[];
  serverBuckets: number[];
  connectionType: string;
}

/** The index of the bucket a duration falls in (Go's sort.SearchFloat64s: the first bound >= it; past the last, +Inf). */
function bucketOf(sec: number): number {
  const i = CONNECTOR_BUCKETS_SEC.findIndex((le) => le >= sec);
  return i < 0 ? CONNECTOR_BUCKETS_SEC.length : i;
}

/** The Prometheus text of the servicegraph series of `spans`. */
export function servicegraphText(spans: readonly Span[]): string {
  const byId = new Map(spans.map((s) => [`${s.traceId}/${s.spanId}`, s]));
  const serverOf = new Map<string, Span>();
  for (const s of spans) if (s.kind === 'server' && s.parentId !== undefined) serverOf.set(`${s.traceId}/${s.parentId}`, s);
  const edges = new Map<string, Edge>();
  const add = (client: string, server: string, connectionType: string, failed: boolean, clientUs: number, serverUs: number) => {
    const key = JSON.stringify([client, server, connectionType]);
    const empty = () => new Array<number>(CONNECTOR_BUCKETS_SEC.length + 1).fill(0);
    const e = edges.get(key) ?? { requests: 0, failed: 0, clientSec: 0, serverSec: 0, clientBuckets: empty(), serverBuckets: empty(), connectionType };
    e.requests++;
    if (failed) e.failed++;
    e.clientSec += clientUs / 1e6;
    e.serverSec += serverUs / 1e6;
    (e.clientBuckets[bucketOf(clientUs / 1e6)] as number)++;
    (e.serverBuckets[bucketOf(serverUs / 1e6)] as number)++;
    edges.set(key, e);
  };
  for (const s of spans) {
    if (s.kind === 'client') {
      const server = serverOf.get(`${s.traceId}/${s.spanId}`);
      if (server !== undefined) add(s.service, server.service, '', s.error || server.error, s.durationUs, server.durationUs);
      else add(s.service, s.peer ?? 'unknown', 'virtual_node', s.error, s.durationUs, 0);
    } else if (s.kind === 'server') {
      const parent = s.parentId === undefined ? undefined : byId.get(`${s.traceId}/${s.parentId}`);
      if (parent === undefined || parent.kind !== 'client') add('user', s.service, 'virtual_node', s.error, 0, s.durationUs);
    }
  }
  const lines: string[] = [];
  for (const [key, e] of edges) {
    const [client, server] = JSON.parse(key) as [string, string];
    const labels = `client="${client}",server="${server}",connection_type="${e.connectionType}"`;
    lines.push(`traces_service_graph_request_total{${labels}} ${e.requests}`);
    lines.push(`traces_service_graph_request_failed_total{${labels}} ${e.failed}`);
    for (const [side, sec, buckets] of [['server', e.serverSec, e.serverBuckets], ['client', e.clientSec, e.clientBuckets]] as const) {
      let cumulative = 0;
      CONNECTOR_BUCKETS_SEC.forEach((le, i) => {
        cumulative += buckets[i] as number;
        lines.push(`traces_service_graph_request_${side}_seconds_bucket{${labels},le="${le}"} ${cumulative}`);
      });
      lines.push(`traces_service_graph_request_${side}_seconds_bucket{${labels},le="+Inf"} ${e.requests}`);
      lines.push(`traces_service_graph_request_${side}_seconds_sum{${labels}} ${sec}`);
      lines.push(`traces_service_graph_request_${side}_seconds_count{${labels}} ${e.requests}`);
    }
  }
  return lines.join('\n') + '\n';
}
