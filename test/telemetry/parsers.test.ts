import { describe, expect, it } from 'vitest';
import { parsePrometheusQuery, counterIncrease } from '../../src/telemetry/prometheusQuery.js';
import { parsePrometheusText } from '../../src/telemetry/prometheusText.js';
import { histogramMeanMs, servicegraphEdges } from '../../src/telemetry/servicegraphSeries.js';
import { readSpanText } from '../../src/telemetry/spanFiles.js';
import { TelemetryInputError, MAX_FILE_PROBLEMS } from '../../src/telemetry/TelemetryInputError.js';

/** The problems a reader throws. */
function problemsOf(f: () => unknown): string[] {
  try {
    f();
  } catch (e) {
    if (e instanceof TelemetryInputError) return e.problems;
    throw e;
  }
  throw new Error('no problem thrown');
}

const EXPOSITION = `# HELP traces_service_graph_request_total Total count of requests between two nodes
# TYPE traces_service_graph_request_total counter
traces_service_graph_request_total{client="user",server="api",connection_type="virtual_node",failed="false"} 90
traces_service_graph_request_total{client="user",server="api",connection_type="virtual_node",failed="true"} 10
traces_service_graph_request_total{client="api",server="db",connection_type=""} 300 1700000000000
traces_service_graph_request_failed_total{client="api",server="db",connection_type=""} 6
traces_service_graph_request_server_seconds_bucket{client="api",server="db",connection_type="",le="0.01"} 200
traces_service_graph_request_server_seconds_bucket{client="api",server="db",connection_type="",le="+Inf"} 300
traces_service_graph_request_server_seconds_sum{client="api",server="db",connection_type=""} 1.5
traces_service_graph_request_server_seconds_count{client="api",server="db",connection_type=""} 300
traces_service_graph_request_client_seconds_sum{client="api",server="db",connection_type=""} 1.8
traces_service_graph_request_client_seconds_count{client="api",server="db",connection_type=""} 300
process_cpu_seconds_total 12.5
weird{path="a\\"b\\\\c\\nd"} NaN
`;

describe('Prometheus text exposition', () => {
  it('reads names, labels (escapes included), values and ignores timestamps and comments', () => {
    const samples = parsePrometheusText(EXPOSITION, 'm.prom');
    expect(samples).toHaveLength(12);
    expect(samples[2]).toEqual({ name: 'traces_service_graph_request_total', labels: { client: 'api', server: 'db', connection_type: '' }, value: 300, where: ':5:' });
    expect(samples[11]?.labels.path).toBe('a"b\\c\nd');
    expect(samples[11]?.value).toBeNaN();
  });

  it('names the file, the line and the rule of each bad line, quoting it by the excerpt rule', () => {
    const problems = problemsOf(() => parsePrometheusText('ok_metric 1\nbad{client="x} 1\n9lives 2\nm{a="1"} abc\nm{a="1",a="2"} 1\n', 'dump.prom'));
    expect(problems).toEqual([
      'dump.prom:2: the value of label client is not closed by a double quote (got "bad{client=\\"x} 1")',
      'dump.prom:3: a sample must start with a metric name (a letter, "_" or ":", then letters, digits, "_" and ":") (got "9lives 2")',
      'dump.prom:4: the value must be a number, +Inf, -Inf or NaN (got "m{a=\\"1\\"} abc")',
      'dump.prom:5: the label a is given twice (got "m{a=\\"1\\",a=\\"2\\"} 1")',
    ]);
  });

  it('reads labels named like Object members (constructor, __proto__) as labels', () => {
    const [sample] = parsePrometheusText('m{constructor="a",__proto__="b",toString="c"} 1\n', 'm.prom');
    expect(Object.entries(sample?.labels ?? {})).toEqual([['constructor', 'a'], ['__proto__', 'b'], ['toString', 'c']]);
  });

  it('stops after a bounded number of problems (a file of another kind lists no thousands)', () => {
    const problems = problemsOf(() => parsePrometheusText('%\n'.repeat(1000), 'x.bin'));
    expect(problems).toHaveLength(MAX_FILE_PROBLEMS + 1);
    expect(problems.at(-1)).toBe(`x.bin: stopped after ${MAX_FILE_PROBLEMS} problems`);
  });
});

describe('servicegraph series', () => {
  it('gathers requests, failures and both histograms per edge; failed="true" counts when no failed series exists', () => {
    const edges = servicegraphEdges(parsePrometheusText(EXPOSITION, 'm.prom'), 'm.prom');
    expect(edges.map((e) => [e.client, e.server, e.connectionType, e.requests, e.failed])).toEqual([
      ['user', 'api', 'virtual_node', 100, 0],
      ['api', 'db', '', 300, 6],
    ]);
    const db = edges[1]!;
    expect(histogramMeanMs(db.serverTime)).toBeCloseTo(5, 10);
    expect(histogramMeanMs(db.clientTime)).toBeCloseTo(6, 10);
    expect(db.serverTime.buckets).toEqual([{ le: 0.01, count: 200 }, { le: Infinity, count: 300 }]);
    // Without a failed series, the failed label is read.
    const labelled = servicegraphEdges(parsePrometheusText(EXPOSITION.split('\n').filter((l) => !l.includes('failed_total')).join('\n'), 'm.prom'), 'm.prom');
    expect(labelled[0]?.failed).toBe(10);
  });

  it('refuses a servicegraph sample without client and server labels, naming the line', () => {
    expect(problemsOf(() => servicegraphEdges(parsePrometheusText('traces_service_graph_request_total{server="a"} 3\n', 'm.prom'), 'm.prom'))).toEqual([
      'm.prom:1: traces_service_graph_request_total must have the labels client and server (got {"server":"a"})',
    ]);
  });
});

describe('Prometheus query API', () => {
  const series = (name: string, labels: Record<string, string>, values: Array<[number, string]>) => ({ metric: { __name__: name, ...labels }, values });
  it('reads a matrix as counters over its range (first to last point, resets counted) and the window it spans', () => {
    const answer = {
      status: 'success',
      data: {
        resultType: 'matrix',
        result: [
          series('traces_service_graph_request_total', { client: 'user', server: 'api' }, [[1000, '100'], [1030, '160'], [1060, '220']]),
          series('traces_service_graph_request_total', { client: 'api', server: 'db' }, [[1000, '500'], [1030, '20'], [1060, '80']]),
        ],
      },
    };
    const { samples, windowSec } = parsePrometheusQuery(JSON.stringify(answer), 'q.json');
    expect(windowSec).toBe(60);
    expect(samples.map((s) => s.value)).toEqual([120, 80]);
    expect(counterIncrease([5, 7, 2, 4])).toBe(2 + 2 + 2);
  });

  it('reads vectors as they are, and a list of answers', () => {
    const answer = (v: string) => ({ status: 'success', data: { resultType: 'vector', result: [{ metric: { __name__: 'traces_service_graph_request_total', client: 'a', server: 'b' }, value: [1700000000, v] }] } });
    const { samples, windowSec } = parsePrometheusQuery(JSON.stringify([answer('7'), answer('3')]), 'q.json');
    expect(samples.map((s) => [s.value, s.where])).toEqual([[7, '0.data.result.0'], [3, '1.data.result.0']]);
    expect(windowSec).toBeUndefined();
  });

  it('names the path and the rule of each wrong field; a result without a name says how to query it', () => {
    const bad = { status: 'success', data: { resultType: 'vector', result: [{ metric: { client: 'a' }, value: [1, '2'] }, { metric: { __name__: 'x' }, value: [1, 'two'] }] } };
    expect(problemsOf(() => parsePrometheusQuery(JSON.stringify(bad), 'q.json'))).toEqual([
      'q.json: data.result.0.metric.__name__ must name the series (a query such as increase(...) drops the name: query the series by name over a range with query_range instead, docs/telemetry.md) (got nothing)',
      'q.json: data.result.1.value must be a point [unix seconds, "value"] (got [1,"two"])',
    ]);
    expect(problemsOf(() => parsePrometheusQuery('{"status": "error"}', 'q.json'))).toEqual(['q.json: status must be "success" (the query failed or this is not a query-API answer) (got "error")']);
    expect(problemsOf(() => parsePrometheusQuery('{"status": ', 'q.json'))[0]).toMatch(/^q\.json: invalid JSON at line 1, column 12: unexpected end of input/);
  });
});

describe('span files', () => {
  const otlp = {
    resourceSpans: [
      {
        resource: { attributes: [{ key: 'service.name', value: { stringValue: 'api' } }] },
        scopeSpans: [
          {
            spans: [
              { traceId: 't1', spanId: 's1', name: 'GET /x', kind: 2, startTimeUnixNano: '1800000000000000000', endTimeUnixNano: '1800000000005000000' },
              { traceId: 't1', spanId: 's2', parentSpanId: 's1', name: 'db', kind: 'SPAN_KIND_CLIENT', startTimeUnixNano: '1800000000001000000', endTimeUnixNano: '1800000000002500000', status: { code: 2 }, attributes: [{ key: 'http.request.resend_count', value: { intValue: '1' } }, { key: 'peer.service', value: { stringValue: 'db' } }] },
            ],
          },
        ],
      },
    ],
  };

  it('reads OTLP JSON: service from the resource, nanoseconds to microseconds, kind, status, resend count, peer', () => {
    const { format, spans } = readSpanText(JSON.stringify(otlp), 's.json');
    expect(format).toBe('otlp');
    expect(spans).toEqual([
      { traceId: 't1', spanId: 's1', parentId: undefined, service: 'api', name: 'GET /x', kind: 'server', startUs: 1800000000000000, durationUs: 5000, error: false, resendCount: undefined, peer: undefined },
      { traceId: 't1', spanId: 's2', parentId: 's1', service: 'api', name: 'db', kind: 'client', startUs: 1800000000001000, durationUs: 1500, error: true, resendCount: 1, peer: 'db' },
    ]);
  });

  it("reads OTLP JSON lines (the Collector's file exporter) line by line, naming a bad line's number, and Tempo's batches", () => {
    const line = JSON.stringify(otlp);
    const { format, spans } = readSpanText(`${line}\n${line.replace(/"t1"/g, '"t2"')}\n`, 's.jsonl');
    expect(format).toBe('otlp');
    expect(spans.map((s) => [s.traceId, s.spanId])).toEqual([['t1', 's1'], ['t1', 's2'], ['t2', 's1'], ['t2', 's2']]);
    expect(problemsOf(() => readSpanText(`${line}\n${line.replace('"kind":2', '"kind":"server"')}\n`, 's.jsonl'))).toEqual([
      's.jsonl:2: resourceSpans.0.scopeSpans.0.spans.0.kind must be a span kind (0 to 5, or SPAN_KIND_SERVER...) (got "server")',
    ]);
    const tempo = readSpanText(JSON.stringify({ batches: otlp.resourceSpans }), 'tempo.json');
    expect(tempo.spans).toHaveLength(2);
  });

  it('names the path and rule of a wrong OTLP field', () => {
    const bad = structuredClone(otlp) as any;
    bad.resourceSpans[0].scopeSpans[0].spans[1].kind = 9;
    bad.resourceSpans[0].scopeSpans[0].spans[0].endTimeUnixNano = '17';
    expect(problemsOf(() => readSpanText(JSON.stringify(bad), 's.json'))).toEqual([
      's.json: resourceSpans.0.scopeSpans.0.spans.0.endTimeUnixNano must not be before startTimeUnixNano (got "17")',
      's.json: resourceSpans.0.scopeSpans.0.spans.1.kind must be a span kind (0 to 5, or SPAN_KIND_SERVER...) (got 9)',
    ]);
  });

  it('reads Jaeger JSON: processes, CHILD_OF references, span.kind and error tags', () => {
    const jaeger = {
      data: [
        {
          traceID: 'T',
          spans: [
            { traceID: 'T', spanID: 'a', operationName: 'HTTP GET', references: [], startTime: 100, duration: 50, tags: [{ key: 'span.kind', type: 'string', value: 'server' }], processID: 'p1' },
            { traceID: 'T', spanID: 'b', operationName: 'query', references: [{ refType: 'CHILD_OF', traceID: 'T', spanID: 'a' }], startTime: 110, duration: 20, tags: [{ key: 'span.kind', type: 'string', value: 'client' }, { key: 'error', type: 'bool', value: true }], processID: 'p1' },
          ],
          processes: { p1: { serviceName: 'frontend', tags: [] } },
        },
      ],
    };
    const { format, spans } = readSpanText(JSON.stringify(jaeger), 'j.json');
    expect(format).toBe('jaeger');
    expect(spans.map((s) => [s.spanId, s.parentId, s.service, s.kind, s.startUs, s.durationUs, s.error])).toEqual([
      ['a', undefined, 'frontend', 'server', 100, 50, false],
      ['b', 'a', 'frontend', 'client', 110, 20, true],
    ]);
    const bad = structuredClone(jaeger) as any;
    bad.data[0].spans[1].processID = 'p9';
    expect(problemsOf(() => readSpanText(JSON.stringify(bad), 'j.json'))).toEqual(['j.json: data.0.spans.1.processID must name a process of the trace\'s "processes" (got "p9")']);
  });

  it('reads Zipkin v2 JSON, giving a shared server span an id of its own under the client span', () => {
    const zipkin = [
      { traceId: 'z', id: '1', name: 'get', kind: 'SERVER', timestamp: 1000, duration: 900, localEndpoint: { serviceName: 'web' } },
      { traceId: 'z', id: '2', parentId: '1', name: 'get', kind: 'CLIENT', timestamp: 1100, duration: 500, localEndpoint: { serviceName: 'web' }, remoteEndpoint: { serviceName: 'api' }, tags: { 'http.request.resend_count': '2' } },
      { traceId: 'z', id: '2', parentId: '1', name: 'get', kind: 'SERVER', timestamp: 1150, duration: 400, localEndpoint: { serviceName: 'api' }, shared: true },
      { traceId: 'z', id: '3', parentId: '2', name: 'select', kind: 'CLIENT', timestamp: 1200, duration: 100, localEndpoint: { serviceName: 'api' }, tags: { error: 'timeout' } },
    ];
    const { format, spans } = readSpanText(JSON.stringify(zipkin), 'z.json');
    expect(format).toBe('zipkin');
    expect(spans.map((s) => [s.spanId, s.parentId, s.service, s.kind, s.error, s.resendCount, s.peer])).toEqual([
      ['1', undefined, 'web', 'server', false, undefined, undefined],
      ['2', '1', 'web', 'client', false, 2, 'api'],
      ['2:server', '2', 'api', 'server', false, undefined, undefined],
      ['3', '2:server', 'api', 'client', true, undefined, undefined],
    ]);
  });

  it('refuses a document of none of the three shapes', () => {
    expect(problemsOf(() => readSpanText('{"spans": []}', 'x.json'))).toEqual([
      'x.json: is not a span file: expected OTLP JSON (an object with "resourceSpans"), Jaeger JSON (an object with "data": traces with "spans") or Zipkin v2 JSON (a list of spans with "traceId" and "id")',
    ]);
  });
});
