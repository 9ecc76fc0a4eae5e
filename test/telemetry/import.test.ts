import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { graphFromMetrics, graphFromSpans, importTelemetry, PLACEHOLDER_PREFIX, readMetricTexts, readSpanText, type Span } from '../../src/telemetry/index.js';
import type { ObservedGraph } from '../../src/telemetry/observedGraph.js';
import { cli, tempDir, writeExperiment } from '../cli/helpers.js';
import { callsWritten } from '../../src/telemetry/experimentFromGraph.js';
import { servicegraphText } from './servicegraphOf.js';
import { syntheticOtlp, TRUTH } from './syntheticTraces.js';

/** Within 5% of the truth. */
function near(actual: number | undefined, truth: number): void {
  expect(actual).toBeDefined();
  expect(Math.abs((actual as number) - truth) / truth).toBeLessThanOrEqual(0.05);
}

/** A graph's structure: per service and endpoint, its steps as [join, [callee, optional]...]. */
function structure(g: ObservedGraph): Record<string, Record<string, unknown>> {
  const out: Record<string, Record<string, unknown>> = {};
  for (const [name, s] of g.services) {
    out[name] = Object.fromEntries([...s.endpoints].map(([ep, e]) => [ep, e.steps.map((st) => [st.join, ...st.calls.map((c) => [c.service, c.endpoint ?? null, c.optional])])]));
  }
  return out;
}

let text: string;
let spans: Span[];
beforeAll(() => {
  text = syntheticOtlp();
  spans = readSpanText(text, 'synthetic.json').spans;
});

describe('import from spans: a known graph recovered', () => {
  it('recovers the services, endpoints, steps (parallel, sequential), the optional call and the workloads exactly', () => {
    const g = graphFromSpans(spans);
    expect(structure(g)).toEqual({
      frontend: { page: [['all', ['recs', 'get', true], ['users', 'get', false]], ['all', ['db', 'query', false]]] },
      users: { get: [] },
      recs: { get: [] },
      db: { query: [] },
      reports: { run: [['all', ['db', 'query', false]]] },
    });
    expect(g.workloads.map((w) => [w.name, w.entries.map((e) => [e.service, e.endpoint])])).toEqual([
      ['browser', [['frontend', 'page']]],
      ['batch', [['reports', 'run']]],
    ]);
  });

  it('recovers rates, retries, service times and the hop within 5%', () => {
    const g = graphFromSpans(spans);
    const [browser, batch] = g.workloads;
    near(browser?.operationsPerSec, TRUTH.browserPerSec);
    near(batch?.operationsPerSec, TRUTH.batchPerSec);
    // The batch's retries are told apart by resend count: attempts per operation 1 + the retried share.
    near(batch?.attemptsPerOperation, 1 + TRUTH.batchRetryFraction);
    expect(batch?.maxAttempts).toBe(2);
    const users = g.services.get('frontend')?.endpoints.get('page')?.steps[0]?.calls.find((c) => c.service === 'users');
    near(users?.attemptsPerCall, 1 + TRUTH.usersRetryFraction);
    near(users?.perRequest, 1);
    for (const [service, ms] of Object.entries(TRUTH.workMs)) {
      const eps = [...(g.services.get(service)?.endpoints.values() ?? [])];
      near(eps[0]?.ownWorkMs, ms);
    }
    near(g.hopMs, TRUTH.hopMs);
  });

  it('writes what cannot be inferred as placeholders, which validate names one by one until they are filled in', async () => {
    const dir = tempDir();
    const spansFile = join(dir, 'spans.json');
    writeExperiment(dir, 'spans.json', text);
    const out = join(dir, 'imported.json');
    const run = await cli(['import-telemetry', '--spans', spansFile, '--out', out]);
    expect(run.code).toBe(0);
    const written = JSON.parse(readFileSync(out, 'utf8')) as { name: string; scenario: unknown };
    expect(written.name).toBe('imported');
    const holes = JSON.stringify(written).match(new RegExp(`"${PLACEHOLDER_PREFIX}[^"]*"`, 'g')) ?? [];
    // Workers and queue limit of 5 services, one policy per workload (2) and per call site (4).
    expect(holes).toHaveLength(5 * 2 + 2 + 4);
    expect(run.out).toContain(`${holes.length} placeholders to fill in`);
    const refused = await cli(['validate', out]);
    expect(refused.code).toBe(2);
    const errors = refused.err.trim().split('\n');
    expect(errors).toHaveLength(holes.length);
    expect(errors.every((e) => e.includes(`(got "${PLACEHOLDER_PREFIX}`))).toBe(true);
    expect(refused.err).toContain('scenario.services.frontend.fleet.concurrency must be a positive integer or "unlimited" (got "FILL IN: workers (peak');
    expect(refused.err).toContain('scenario.services.frontend.endpoints.page.steps.1.calls.1.stack.0.policy.maxAttempts');
    // Filled in, the file is valid as written.
    const filled = readFileSync(out, 'utf8').replace(new RegExp(`"${PLACEHOLDER_PREFIX}[^"]*"`, 'g'), '3');
    writeExperiment(dir, 'filled.json', filled);
    const ok = await cli(['validate', join(dir, 'filled.json')]);
    expect(ok.err).toBe('');
    expect(ok.code).toBe(0);
  });
});

describe('joins and entry mixes from span timing', () => {
  /** A server span of `service` at [start, end) ms with client calls below it, each [callee, start, end]. */
  function request(trace: string, service: string, name: string, start: number, end: number, calls: Array<[string, number, number]>): Span[] {
    const us = (ms: number) => ms * 1000;
    const base = { traceId: trace, error: false, resendCount: undefined, peer: undefined };
    const root: Span = { ...base, spanId: `${trace}-r`, parentId: undefined, service, name, kind: 'server', startUs: us(start), durationUs: us(end - start) };
    return [
      root,
      ...calls.flatMap(([callee, s, e], i): Span[] => [
        { ...base, spanId: `${trace}-c${i}`, parentId: root.spanId, service, name: `call ${callee}`, kind: 'client', startUs: us(s), durationUs: us(e - s) },
        { ...base, spanId: `${trace}-s${i}`, parentId: `${trace}-c${i}`, service: callee, name: 'get', kind: 'server', startUs: us(s), durationUs: us(e - s) },
      ]),
    ];
  }

  it('a step whose request went on after the first of its calls ended is joined by any; after two of three, by a quorum of 2', () => {
    const spans = [1, 2, 3].flatMap((i) => [
      ...request(`a${i}`, 'api', 'any', 0, 30, [['x', 1, 5], ['y', 1, 40]]),
      ...request(`q${i}`, 'api', 'quorum', 0, 30, [['x', 1, 5], ['y', 1, 6], ['w', 1, 50]]),
    ]);
    const g = graphFromSpans(spans);
    // The request ends at 30 ms: with one of its two calls ended (any), with two of its three (a quorum of 2).
    expect(g.services.get('api')?.endpoints.get('any')?.steps.map((s) => s.join)).toEqual(['any']);
    expect(g.services.get('api')?.endpoints.get('quorum')?.steps.map((s) => s.join)).toEqual([{ quorum: 2 }]);
    // Two endpoints of api entered by user: one workload, its entries weighted by their requests.
    expect(g.workloads).toHaveLength(1);
    expect(g.workloads[0]?.entries).toEqual([{ service: 'api', endpoint: 'any', weight: 3 }, { service: 'api', endpoint: 'quorum', weight: 3 }]);
  });
});

describe('a utilisation given', () => {
  it("turns a service's workers' evidence into the workers that would be that busy (rate x own work / utilisation)", async () => {
    const dir = tempDir();
    writeExperiment(dir, 'spans.json', text);
    const r = await cli(['import-telemetry', '--spans', 'spans.json', '--utilization', 'frontend=0.5'], dir);
    expect(r.code).toBe(0);
    const holder = (JSON.parse(r.out) as { scenario: { services: { frontend: { fleet: { concurrency: string } } } } }).scenario.services.frontend.fleet.concurrency;
    const workers = Number(/^FILL IN: workers \(~([\d.]+) at 50% busy, peak \d+ in flight\)$/.exec(holder)?.[1]);
    near(workers, (TRUTH.browserPerSec * TRUTH.workMs.frontend) / 1000 / 0.5);
    const bad = await cli(['import-telemetry', '--spans', 'spans.json', '--utilization', 'front=0.5'], dir);
    expect(bad.code).toBe(2);
    expect(bad.err).toBe('error: --utilization names "front", not a service of the telemetry (its services: frontend, users, recs, db, reports)\n');
    const range = await cli(['import-telemetry', '--spans', 'spans.json', '--utilization', 'frontend=50'], dir);
    expect(range.err).toBe('error: --utilization must be <service>=<fraction>, a fraction in (0, 1] (got "frontend=50")\n');
  });
});

describe('import from the servicegraph series', () => {
  it('from metrics alone: the services and edges, entry rates counting attempts, and the stated assumptions', () => {
    const { edges } = readMetricTexts([{ file: 'sg.prom', text: servicegraphText(spans) }]);
    const g = graphFromMetrics(edges, TRUTH.windowSec);
    expect(structure(g)).toEqual({
      frontend: { default: [['all', ['users', null, false], ['recs', null, false], ['db', null, false]]] },
      users: { default: [] },
      recs: { default: [] },
      db: { default: [] },
      reports: { default: [['all', ['db', null, false]]] },
    });
    const batch = g.workloads.find((w) => w.name === 'batch');
    // Attempts, not operations: the retried share is in the rate.
    near(batch?.operationsPerSec, TRUTH.batchPerSec * (1 + TRUTH.batchRetryFraction));
    const users = g.services.get('frontend')?.endpoints.get('default')?.steps[0]?.calls.find((c) => c.service === 'users');
    near(users?.perRequest, 1 + TRUTH.usersRetryFraction);
    near(g.services.get('db')?.endpoints.get('default')?.ownWorkMs, TRUTH.workMs.db);
    near(g.hopMs, TRUTH.hopMs);
    expect(g.notes.some((n) => n.startsWith('Only metrics: retries cannot be told apart'))).toBe(true);
  });

  it('with spans: the structure from the spans, the rates from the series, retries taken out of them', () => {
    const imported = importTelemetry({ metrics: [{ file: 'sg.prom', text: servicegraphText(spans) }], spans: [{ file: 's.json', text }], windowSec: TRUTH.windowSec, name: 'x' });
    const workloads = (imported.experiment.scenario as { workloads: Record<string, { rate: number }> }).workloads;
    near(workloads.batch?.rate, TRUTH.batchPerSec);
    near(workloads.browser?.rate, TRUTH.browserPerSec);
    expect(imported.notes[0]).toBe('Structure, service times, retries and errors from the spans; rates from the servicegraph series.');
  });
});

describe('import-telemetry on bad input', () => {
  it('reads spans whose parents form a cycle or a chain deeper than the call stack without failing', () => {
    const span = (id: number, parent: number | undefined, kind: number) => ({ traceId: 't', spanId: String(id), parentSpanId: parent === undefined ? '' : String(parent), name: 'op', kind, startTimeUnixNano: String(1e15 + id), endTimeUnixNano: String(1e15 + 1e6) });
    const chain = Array.from({ length: 12_000 }, (_, i) => span(i + 2, i + 1, 1));
    const doc = { resourceSpans: [{ resource: { attributes: [{ key: 'service.name', value: { stringValue: 'a' } }] }, scopeSpans: [{ spans: [span(1, undefined, 2), ...chain, span(900_001, 900_002, 1), span(900_002, 900_001, 1)] }] }] };
    const g = graphFromSpans(readSpanText(JSON.stringify(doc), 'deep.json').spans);
    expect([...g.services.keys()]).toEqual(['a']);
  });


  it('exits 2 naming the file, line and rule of a bad metrics line, and writes nothing', async () => {
    const dir = tempDir();
    writeExperiment(dir, 'bad.prom', 'traces_service_graph_request_total{client="a",server="b"} 3\ntraces_service_graph_request_total{client="a" 4\n');
    const out = join(dir, 'out.json');
    const r = await cli(['import-telemetry', '--metrics', join(dir, 'bad.prom'), '--window', '5m', '--out', out], dir);
    expect(r.code).toBe(2);
    expect(r.err).toBe(`error: ${join(dir, 'bad.prom')}:2: "," or "}" was expected after the value of label client (got "traces_service_graph_request_total{client=\\"a\\" 4")\n`);
    expect(() => readFileSync(out)).toThrow();
  });

  it('exits 2 when totals come without their window, and on a bad --window', async () => {
    const dir = tempDir();
    writeExperiment(dir, 'ok.prom', 'traces_service_graph_request_total{client="user",server="b"} 3\n');
    const r = await cli(['import-telemetry', '--metrics', 'ok.prom'], dir);
    expect(r.code).toBe(2);
    expect(r.err).toContain('ok.prom: the counts are totals without the window they were counted over: give --window');
    const w = await cli(['import-telemetry', '--metrics', 'ok.prom', '--window', '5 minutes'], dir);
    expect(w.code).toBe(2);
    expect(w.err).toContain('--window must be a duration such as 5m, 90s or 1h30m');
    const ok = await cli(['import-telemetry', '--metrics', 'ok.prom', '--window', '1m30s'], dir);
    expect(ok.code).toBe(0);
    const written = JSON.parse(ok.out) as { scenario: { workloads: { user: { rate: number } }; services: { b: { fleet: { serviceMs: unknown } } } } };
    expect(written.scenario.workloads.user.rate).toBeCloseTo(3 / 90, 4);
    // No duration series: the service time is a placeholder too, and validate names it.
    expect(written.scenario.services.b.fleet.serviceMs).toBe(`${PLACEHOLDER_PREFIX}service time ms (no duration series)`);
    writeExperiment(dir, 'untimed.json', ok.out);
    const v = await cli(['validate', 'untimed.json'], dir);
    expect(v.code).toBe(2);
    expect(v.err).toContain('scenario.services.b.fleet.serviceMs');
  });
});

describe('calls per request written as whole calls and a call with a probability', () => {
  const observed = (perRequest: number, retriesSeen = true) => ({ service: 'db', endpoint: undefined, perRequest, attemptsPerCall: 1, maxAttempts: 1, retriesSeen, optional: false, calls: 100 });
  it('keeps the mean: 0.3 is one call of probability 0.3, 2.5 two calls and one of probability 0.5, 1.02 one call', () => {
    expect(callsWritten(observed(0.3), true)).toEqual({ whole: 0, probability: 0.3 });
    expect(callsWritten(observed(2.5), true)).toEqual({ whole: 2, probability: 0.5 });
    expect(callsWritten(observed(1.02), true)).toEqual({ whole: 1 });
    expect(callsWritten(observed(0.98), true)).toEqual({ whole: 1 });
  });
  it('rounds where a probability cannot be written (a join other than all) or where what is above one call may be retries', () => {
    expect(callsWritten(observed(0.3), false)).toEqual({ whole: 1 });
    expect(callsWritten(observed(2.5), false)).toEqual({ whole: 3 });
    expect(callsWritten(observed(1.3, false), true)).toEqual({ whole: 1 });
    // Below one call per request it is a probability even without resend counts: retries only add attempts.
    expect(callsWritten(observed(0.3, false), true)).toEqual({ whole: 0, probability: 0.3 });
  });
});
