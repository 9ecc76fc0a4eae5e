/**
 * The telemetry round trip: a known graph simulated, its every operation written as OTLP spans by
 * the traces writer, the servicegraph series computed from those spans as the Collector's connector
 * computes them (servicegraphOf.ts), both imported, the imported graph compared with the original,
 * then the imported experiment (its placeholders filled with the original's values) simulated again
 * and compared with the original run.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { studentTQuantile } from '../../src/metrics/studentT.js';
import type { TraceEvent } from '../../src/model/trace.js';
import { otlpTraces } from '../../src/model/traceOtlp.js';
import { simulate } from '../../src/simulate.js';
import { flattenMetrics } from '../../src/sweep/flattenMetrics.js';
import { combineGraphs } from '../../src/telemetry/combineGraphs.js';
import { graphFromMetrics, graphFromSpans, importTelemetry, PLACEHOLDER_PREFIX, readMetricTexts, readSpanText, type Span } from '../../src/telemetry/index.js';
import type { ObservedGraph } from '../../src/telemetry/observedGraph.js';
import { spanWindowSec } from '../../src/telemetry/spanInference.js';
import { CONNECTOR_BUCKETS_SEC, servicegraphText } from './servicegraphOf.js';

const DURATION_MS = 30_000;
const SEED = 11;
/** Replications of the imported model. */
const REPLICATIONS = 4;
const WORKERS = 32;
const RATES = { web: 80, batch: 40 };
const OWN_MS = { frontend: 2, users: 4, recs: 6, db: 1, reports: 3 };
/** Each call's and workload's attempts: retries present, so that attempts differ from calls. */
const ATTEMPTS = 2;

const policy = { maxAttempts: ATTEMPTS };
const fleet = (service: keyof typeof OWN_MS, failing?: number) => ({
  kind: 'server',
  concurrency: WORKERS,
  serviceMs: { dist: 'exponential', mean: OWN_MS[service] },
  ...(failing === undefined ? {} : { faults: [{ fromMs: 0, probability: failing, status: 500 }] }),
});
/** The chance that frontend calls recs on a request (a call not made on every request). */
const RECS_PROBABILITY = 0.4;
const call = (service: string, endpoint: string, optional = false, probability?: number) => ({
  service,
  endpoint,
  ...(optional ? { optional: true } : {}),
  ...(probability === undefined ? {} : { probability }),
  stack: [{ name: 'sdk', policy }],
});
const work = { kind: 'work' };

/**
 * Two workloads: `web` calls frontend `page`, which works, then calls users and recs in parallel
 * (recs is called on 40% of the requests, fails 20% of the time and is optional), then db (a
 * sequential step); users fails 10% of the time and is retried. `batch` calls reports `run`, which works, then calls db.
 */
const ORIGINAL = {
  workloads: {
    web: { kind: 'open', rate: RATES.web, durationMs: DURATION_MS, entry: { service: 'frontend', endpoint: 'page' }, stack: [{ name: 'app', policy }] },
    batch: { kind: 'open', rate: RATES.batch, durationMs: DURATION_MS, entry: { service: 'reports', endpoint: 'run' }, stack: [{ name: 'job', policy }] },
  },
  services: {
    frontend: { fleet: fleet('frontend'), endpoints: { page: { steps: [work, { kind: 'call', calls: [call('users', 'get'), call('recs', 'get', true, RECS_PROBABILITY)] }, { kind: 'call', calls: [call('db', 'query')] }] } } },
    users: { fleet: fleet('users', 0.1), endpoints: { get: { steps: [work] } } },
    recs: { fleet: fleet('recs', 0.2), endpoints: { get: { steps: [work] } } },
    db: { fleet: fleet('db'), endpoints: { query: { steps: [work] } } },
    reports: { fleet: fleet('reports'), endpoints: { run: { steps: [work, { kind: 'call', calls: [call('db', 'query')] }] } } },
  },
};

/** Within 5% of the truth. */
function near(actual: number | undefined, truth: number, what: string): void {
  expect(actual, what).toBeDefined();
  expect(Math.abs((actual as number) - truth) / truth, `${what}: ${actual} vs ${truth}`).toBeLessThanOrEqual(0.05);
}

/** A graph's structure: per service and endpoint, its steps as [join, [callee, endpoint, optional]...] (callees sorted). */
function structure(g: ObservedGraph): Record<string, Record<string, unknown>> {
  const out: Record<string, Record<string, unknown>> = {};
  for (const [name, s] of g.services) {
    out[name] = Object.fromEntries([...s.endpoints].map(([ep, e]) => [ep, e.steps.map((st) => [st.join, ...st.calls.map((c) => [c.service, c.endpoint ?? null, c.optional]).sort()])]));
  }
  return out;
}

type ScenarioShape = { workloads: Record<string, { entry: { service: string } }>; services: Record<string, { endpoints: Record<string, { steps?: Array<{ kind: string; calls?: Array<{ service: string; optional?: boolean; probability?: number }> }> }> }> };

/** An experiment's graph as written: each workload's entry service, each endpoint's steps (`work`, or the callees, `?` for optional, `~` for a probability), an endpoint without steps one work step. */
function writtenShape(sc: ScenarioShape): unknown {
  const services = Object.fromEntries(Object.entries(sc.services).map(([name, s]) => [name, Object.fromEntries(Object.entries(s.endpoints).map(([ep, e]) => [ep, (e.steps ?? [{ kind: 'work' }]).map((st) => (st.kind === 'work' ? 'work' : (st.calls ?? []).map((c) => `${c.service}${c.optional === true ? '?' : ''}${c.probability !== undefined ? '~' : ''}`).sort()))]))]));
  const workloads = Object.fromEntries(Object.entries(sc.workloads).map(([name, w]) => [name, w.entry.service]));
  return { services, workloads };
}

/** Set the dotted `path` of `doc` to `value`. */
function setPath(doc: Record<string, unknown>, path: string, value: unknown): void {
  const keys = path.split('.');
  let at: Record<string, unknown> = doc;
  for (const k of keys.slice(0, -1)) at = at[k] as Record<string, unknown>;
  at[keys[keys.length - 1] as string] = value;
}

let original: Record<string, number>;
let spans: Span[];
let metricsText: string;
let tracesText: string;
beforeAll(() => {
  const events: TraceEvent[] = [];
  original = flattenMetrics(simulate(ORIGINAL, { seed: SEED, trace: (e) => events.push(e), traceGraph: true }));
  const traces = otlpTraces(events, { layers: [], workloadLayers: new Map([['web', ['app']], ['batch', ['job']]]), entryServices: ['frontend', 'reports'], traceIdPrefix: 0, seed: SEED });
  tracesText = JSON.stringify(traces);
  spans = readSpanText(tracesText, 'traces.otlp.json').spans;
  metricsText = servicegraphText(spans);
});

describe('telemetry round trip: a simulated graph\'s spans and servicegraph series imported', () => {
  it('the spans are every operation of both workloads, with retries: more attempts than calls', () => {
    // Tracing every workload's stack changes nothing: the traced run gives the untraced run's results.
    expect(flattenMetrics(simulate(ORIGINAL, { seed: SEED }))).toEqual(original);
    const roots = spans.filter((s) => s.parentId === undefined);
    expect(roots.length).toBe((original['workloads.web.operations.offered'] as number) + (original['workloads.batch.operations.offered'] as number));
    expect(original['edges.frontend->users.retries']).toBeGreaterThan(0);
    expect(spans.filter((s) => s.kind === 'client' && (s.resendCount ?? 0) > 0).length).toBeGreaterThan(0);
  });

  it('recovers the structure exactly, and rates and service-time means within 5%', () => {
    const { edges } = readMetricTexts([{ file: 'servicegraph.prom', text: metricsText }]);
    const g = combineGraphs(graphFromSpans(spans, spanWindowSec(spans)), graphFromMetrics(edges, DURATION_MS / 1000));
    expect(structure(g)).toEqual({
      frontend: { page: [['all', ['recs', 'get', true], ['users', 'get', false]], ['all', ['db', 'query', false]]] },
      users: { get: [] },
      recs: { get: [] },
      db: { query: [] },
      reports: { run: [['all', ['db', 'query', false]]] },
    });
    expect(g.workloads.map((w) => [w.name, w.entries.map((e) => [e.service, e.endpoint])]).sort()).toEqual([
      ['batch', [['reports', 'run']]],
      ['web', [['frontend', 'page']]],
    ]);
    for (const w of g.workloads) near(w.operationsPerSec, RATES[w.name as keyof typeof RATES], `${w.name} rate`);
    // The call made on 40% of the requests: its calls per request (retries told apart), the probability written.
    const recs = g.services.get('frontend')?.endpoints.get('page')?.steps[0]?.calls.find((c) => c.service === 'recs');
    near(recs?.perRequest, RECS_PROBABILITY, 'frontend -> recs calls per request');
    for (const [service, ms] of Object.entries(OWN_MS)) near([...(g.services.get(service)?.endpoints.values() ?? [])][0]?.ownWorkMs, ms, `${service} own work`);
  });

  it('re-simulating the imported model, its placeholders filled with the original\'s values, gives the original\'s edge amplification and latency percentiles', () => {
    const imported = importTelemetry({
      metrics: [{ file: 'servicegraph.prom', text: metricsText }],
      spans: [{ file: 'traces.otlp.json', text: tracesText }],
      windowSec: DURATION_MS / 1000,
      name: 'imported',
      durationMs: DURATION_MS,
    });
    // The file written has the original's graph: its services, endpoints, steps, optional call, workloads and entries.
    expect(writtenShape(imported.experiment.scenario as ScenarioShape)).toEqual(writtenShape(ORIGINAL as unknown as ScenarioShape));
    const page = (imported.experiment.scenario as ScenarioShape).services.frontend?.endpoints.page?.steps ?? [];
    near(page.flatMap((st) => st.calls ?? []).find((c) => c.service === 'recs')?.probability, RECS_PROBABILITY, 'frontend -> recs probability written');
    expect(imported.placeholders.length).toBeGreaterThan(0);
    for (const p of imported.placeholders) {
      const value = p.path.endsWith('.concurrency') ? WORKERS : p.path.endsWith('.queueLimit') ? 'unlimited' : p.path.endsWith('.maxAttempts') ? ATTEMPTS : undefined;
      expect(value, p.path).toBeDefined();
      setPath(imported.experiment, p.path, value);
    }
    expect(JSON.stringify(imported.experiment)).not.toContain(PLACEHOLDER_PREFIX);
    const scenario = imported.experiment.scenario;
    const runs = Array.from({ length: REPLICATIONS }, (_, i) => flattenMetrics(simulate(scenario, { seed: 100 + i })));
    const t = studentTQuantile(0.05, REPLICATIONS - 1);
    const metrics = ['edges.frontend->users.amplification', 'edges.frontend->recs.amplification', 'edges.frontend->db.amplification', 'edges.reports->db.amplification', 'edges.web->frontend.amplification'];
    for (const w of ['web', 'batch']) metrics.push(`workloads.${w}.latencyMs.p50`, `workloads.${w}.latencyMs.p99`);
    for (const m of metrics) {
      const vals = runs.map((r) => r[m] as number);
      const mean = vals.reduce((a, b) => a + b, 0) / vals.length;
      const sd = Math.sqrt(vals.reduce((a, b) => a + (b - mean) ** 2, 0) / (vals.length - 1));
      // One original run against the re-simulated runs: the 95% prediction interval of one more run.
      const half = t * sd * Math.sqrt(1 + 1 / vals.length);
      expect(Math.abs((original[m] as number) - mean), `${m}: original ${original[m]}, re-simulated ${mean} ± ${half}`).toBeLessThanOrEqual(half);
    }
  });

  it('from the series alone, a service that makes no calls is given its server-time buckets as an empirical histogram (its failures, answered at once, left out); one that calls, an exponential of its own work', () => {
    const imported = importTelemetry({ metrics: [{ file: 'servicegraph.prom', text: metricsText }], spans: [], windowSec: DURATION_MS / 1000, name: 'metrics-only', durationMs: DURATION_MS });
    const services = (imported.experiment.scenario as { services: Record<string, { fleet: { serviceMs: unknown } }> }).services;
    for (const leaf of ['users', 'recs', 'db']) {
      // A leaf's failures are its fault's, answered at once: the buckets are those of the requests it served.
      const served = spans.filter((x) => x.kind === 'server' && x.service === leaf && !x.error).map((x) => x.durationUs / 1e6);
      const below = (le: number) => served.filter((d) => d <= le).length;
      const last = CONNECTOR_BUCKETS_SEC[CONNECTOR_BUCKETS_SEC.length - 1] as number;
      const tail = below(last) < served.length;
      expect(services[leaf]?.fleet.serviceMs, leaf).toEqual({
        dist: 'histogram',
        le: [...CONNECTOR_BUCKETS_SEC.map((le) => Math.round(le * 1000)), ...(tail ? ['+Inf'] : [])],
        counts: [...CONNECTOR_BUCKETS_SEC.map(below), ...(tail ? [served.length] : [])],
        ...(tail ? { tail: 'exponential', sum: expect.any(Number) as number } : {}),
      });
    }
    for (const caller of ['frontend', 'reports']) expect((services[caller]?.fleet.serviceMs as { dist: string }).dist, caller).toBe('exponential');
  });

  it('from the series alone, buckets that do not make a histogram (counts that decrease) give an exponential of the mean instead', () => {
    const labels = 'client="user",server="db",connection_type=""';
    const text = [
      `traces_service_graph_request_total{${labels}} 10`,
      `traces_service_graph_request_server_seconds_bucket{${labels},le="0.002"} 6`,
      `traces_service_graph_request_server_seconds_bucket{${labels},le="0.004"} 4`,
      `traces_service_graph_request_server_seconds_bucket{${labels},le="+Inf"} 10`,
      `traces_service_graph_request_server_seconds_sum{${labels}} 0.03`,
      `traces_service_graph_request_server_seconds_count{${labels}} 10`,
    ].join('\n');
    const imported = importTelemetry({ metrics: [{ file: 'bad-buckets.prom', text }], spans: [], windowSec: 10, name: 'bad-buckets' });
    const services = (imported.experiment.scenario as { services: Record<string, { fleet: { serviceMs: unknown } }> }).services;
    expect(services.db?.fleet.serviceMs).toEqual({ dist: 'exponential', mean: 3 });
  });
});
