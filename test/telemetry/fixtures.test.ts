// The importers on public fixtures (test/fixtures/telemetry/README.md names each file's repository,
// path and commit): the OpenTelemetry Collector servicegraph connector's testdata (traces and the
// metrics the connector is expected to compute from them, pdata YAML converted here), a Jaeger trace
// of the Jaeger UI's tests and a Zipkin v2 trace of Zipkin Lens's tests.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { graphFromMetrics, graphFromSpans, readMetricTexts, readSpanText } from '../../src/telemetry/index.js';
import type { ObservedGraph } from '../../src/telemetry/observedGraph.js';
import { cli } from '../cli/helpers.js';
import { servicegraphText } from './servicegraphOf.js';

const DIR = join('test', 'fixtures', 'telemetry');
const read = (name: string) => readFileSync(join(DIR, name), 'utf8');

type Attr = { key: string; value: { stringValue?: string; boolValue?: boolean } };
type DataPoint = { attributes: Attr[]; asInt?: string; asDouble?: number; bucketCounts?: string[]; explicitBounds?: number[]; count?: string; sum?: number };
type Metric = { name: string; unit?: string; sum?: { dataPoints: DataPoint[] }; histogram?: { dataPoints: DataPoint[] } };

/**
 * pdata metrics (OTLP's JSON mapping, as the connector's testdata writes it in YAML) as the
 * Prometheus exporter writes them: attributes as labels; a histogram's per-bucket counts made
 * cumulative under `le`, with `_sum` and `_count`; `_seconds` added to a name whose unit is `s`.
 */
function pdataToPrometheus(doc: { resourceMetrics: Array<{ scopeMetrics: Array<{ metrics: Metric[] }> }> }): string {
  const lines: string[] = [];
  const labels = (attrs: Attr[], extra = '') => `{${[...attrs.map((a) => `${a.key.replace(/[^a-zA-Z0-9_]/g, '_')}="${a.value.stringValue ?? String(a.value.boolValue)}"`), ...(extra ? [extra] : [])].join(',')}}`;
  for (const m of doc.resourceMetrics.flatMap((r) => r.scopeMetrics.flatMap((s) => s.metrics))) {
    const name = m.unit === 's' && !m.name.endsWith('_seconds') ? `${m.name}_seconds` : m.name;
    for (const p of m.sum?.dataPoints ?? []) lines.push(`${name}${labels(p.attributes)} ${p.asInt ?? p.asDouble}`);
    for (const p of m.histogram?.dataPoints ?? []) {
      let cumulative = 0;
      (p.bucketCounts ?? []).forEach((c, i) => {
        cumulative += Number(c);
        const le = i < (p.explicitBounds ?? []).length ? String(p.explicitBounds?.[i]) : '+Inf';
        lines.push(`${name}_bucket${labels(p.attributes, `le="${le}"`)} ${cumulative}`);
      });
      lines.push(`${name}_sum${labels(p.attributes)} ${p.sum}`, `${name}_count${labels(p.attributes)} ${p.count}`);
    }
  }
  return lines.join('\n') + '\n';
}

/** A graph's edges, `caller -> callee` for calls and `workload => entry` for workloads, sorted. */
function edgesOf(g: ObservedGraph): string[] {
  const calls = [...g.services].flatMap(([name, s]) => [...s.endpoints.values()].flatMap((e) => e.steps.flatMap((st) => st.calls.map((c) => `${name} -> ${c.service}`))));
  const entries = g.workloads.flatMap((w) => w.entries.map((e) => `${w.name} => ${e.service}`));
  return [...calls, ...entries].sort();
}

describe('the servicegraph connector\'s testdata: the graph of the traces is the graph of the metrics the connector computes from them', () => {
  it.each([
    // foo-server's client span has no server (the peer is unknown); bar-requester's root server span has no client (the caller is user).
    ['virtual-node-label', ['foo-server => unknown', 'user => bar-requester'], [['foo-server', 'unknown', 'virtual_node', 1], ['user', 'bar-requester', 'virtual_node', 1]]],
    // foo-server (a client span) calls bar-requester.
    ['extra-dimensions-queue-db', ['foo-server => bar-requester'], [['foo-server', 'bar-requester', '', 1]]],
    // The same call; the metrics add a messaging-system histogram (with no buckets), which is not read.
    ['messaging-system-trace', ['foo-server => bar-requester'], [['foo-server', 'bar-requester', '', 1]]],
  ] as const)('%s', (name, edges, series) => {
    const base = name.replace(/-trace$/, '');
    const trace = JSON.stringify(parse(read(`servicegraph/${base}-trace.yaml`)));
    const fromSpans = graphFromSpans(readSpanText(trace, `${base}-trace.yaml`).spans);
    const metrics = pdataToPrometheus(parse(read(`servicegraph/${name}-expected-metrics.yaml`)));
    const read2 = readMetricTexts([{ file: `${name}-expected-metrics.yaml`, text: metrics }]);
    expect(read2.edges.map((e) => [e.client, e.server, e.connectionType, e.requests])).toEqual(series);
    const fromMetrics = graphFromMetrics(read2.edges, 1);
    expect(edgesOf(fromSpans)).toEqual(edges);
    expect(edgesOf(fromMetrics)).toEqual(edges);
    expect([...fromSpans.services.keys()].sort()).toEqual([...fromMetrics.services.keys()].sort());
  });

  it.each(['virtual-node-label', 'extra-dimensions-queue-db', 'messaging-system-trace'])(
    '%s: the series the round trip computes from spans (servicegraphOf.ts) are those the connector is expected to compute: edges, connection types, requests, failures, counts and sums of both histograms',
    (name) => {
      const base = name.replace(/-trace$/, '');
      const spans = readSpanText(JSON.stringify(parse(read(`servicegraph/${base}-trace.yaml`))), `${base}-trace.yaml`).spans;
      const ours = readMetricTexts([{ file: 'ours.prom', text: servicegraphText(spans) }]).edges;
      const theirs = readMetricTexts([{ file: `${name}-expected-metrics.yaml`, text: pdataToPrometheus(parse(read(`servicegraph/${name}-expected-metrics.yaml`))) }]).edges;
      // The sums of the virtual nodes' edges are left out: this expected file holds the one-sided edge's
      // span duration under the other side's histogram (foo-server -> unknown, a client span alone, has
      // its 1 us as server time), where connector.go at the commit cited records each span's duration on
      // its own side (ClientLatencySec from a client span), as servicegraphOf.ts does.
      const sums = (e: (typeof ours)[number]) => (e.connectionType === 'virtual_node' ? [] : [e.serverTime.sumSec.toFixed(6), e.clientTime.sumSec.toFixed(6)]);
      const row = (e: (typeof ours)[number]) => [e.client, e.server, e.connectionType, e.requests, e.failed, e.serverTime.count, e.clientTime.count, ...sums(e)];
      expect(ours.map(row)).toEqual(theirs.map(row));
    },
  );
});

describe('a Jaeger trace (jaeger-ui testTraceNormal.json)', () => {
  it('gives the gateway calling the customers service, the user entering at the gateway, own work and the hop', () => {
    const g = graphFromSpans(readSpanText(read('jaeger-testTraceNormal.json'), 'jaeger-testTraceNormal.json').spans);
    expect(edgesOf(g)).toEqual(['api-gateway -> customers-service', 'user => api-gateway']);
    const gateway = g.services.get('api-gateway')?.endpoints.get('GET /api/customer/owners/8/pets/10');
    expect(gateway?.steps.map((s) => s.calls.map((c) => [c.service, c.endpoint, c.perRequest]))).toEqual([[['customers-service', 'GET /owners/8/pets/10', 1]]]);
    // Own work: 4902 us minus the 2499 us client span; the customers service's two local query spans are its own work.
    expect(gateway?.ownWorkMs).toBeCloseTo(2.403, 9);
    expect(g.services.get('customers-service')?.endpoints.get('GET /owners/8/pets/10')?.ownWorkMs).toBeCloseTo(1.739, 9);
    // The hop: half of the client span's 2499 us beyond the server span's 1739 us.
    expect(g.hopMs).toBeCloseTo(0.38, 9);
  });

  it('imports through the command into a file whose only problems are the placeholders', async () => {
    const file = join(DIR, 'jaeger-testTraceNormal.json');
    const r = await cli(['import-telemetry', '--spans', file]);
    expect(r.code).toBe(0);
    const written = JSON.parse(r.out) as { name: string; scenario: { services: Record<string, unknown> } };
    expect(Object.keys(written.scenario.services)).toEqual(['customers-service', 'api-gateway']);
  });
});

describe('a Zipkin v2 trace (zipkin-lens skew.json, with a shared server span)', () => {
  it('gives servicea calling serviceb, the user entering at servicea, and serviceb\'s local span as its own work', () => {
    const g = graphFromSpans(readSpanText(read('zipkin-skew.json'), 'zipkin-skew.json').spans);
    expect(edgesOf(g)).toEqual(['servicea -> serviceb', 'user => servicea']);
    expect(g.services.get('servicea')?.endpoints.get('get')?.ownWorkMs).toBeCloseTo((99411 - 94539) / 1000, 9);
    expect(g.services.get('serviceb')?.endpoints.get('post')?.ownWorkMs).toBeCloseTo(93.577, 9);
    expect(g.hopMs).toBeCloseTo((94539 - 93577) / 2 / 1000, 9);
  });
});
