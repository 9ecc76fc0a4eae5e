/**
 * A metrics-only import of services whose faults answer at once: the failed requests are the fault
 * (counted once, as its probability), not also near-zero server times in the own work or the
 * service-time histogram, nor requests that made no calls in the calls per request.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { TraceEvent } from '../../src/model/trace.js';
import { otlpTraces } from '../../src/model/traceOtlp.js';
import { simulate } from '../../src/simulate.js';
import { flattenMetrics } from '../../src/sweep/flattenMetrics.js';
import { graphFromMetrics, graphFromSpans, importTelemetry, readMetricTexts, readSpanText, type Span } from '../../src/telemetry/index.js';
import { servicegraphText } from './servicegraphOf.js';

const DURATION_MS = 12_000;
const RATE = 150;
const OWN_MS = { frontend: 2, db: 4 };
const FAULT = { frontend: 0.2, db: 0.3 };

const fleet = (service: keyof typeof OWN_MS) => ({
  kind: 'server',
  concurrency: 64,
  serviceMs: { dist: 'exponential', mean: OWN_MS[service] },
  faults: [{ fromMs: 0, probability: FAULT[service], status: 500 }],
});

/** web -> frontend (works 2 ms, then calls db; 20% of its requests fail at once) -> db (works 4 ms; 30% fail at once). */
const MODEL = {
  workloads: { web: { kind: 'open', rate: RATE, durationMs: DURATION_MS, entry: { service: 'frontend', endpoint: 'page' }, stack: [{ name: 'app', policy: { maxAttempts: 1 } }] } },
  network: { hopMs: 0 },
  services: {
    frontend: { fleet: fleet('frontend'), endpoints: { page: { steps: [{ kind: 'work' }, { kind: 'call', calls: [{ service: 'db', endpoint: 'query' }] }] } } },
    db: { fleet: fleet('db'), endpoints: { query: { steps: [{ kind: 'work' }] } } },
  },
};

/** Within 5% of the truth. */
function near(actual: number | undefined, truth: number, what: string): void {
  expect(actual, what).toBeDefined();
  expect(Math.abs((actual as number) - truth) / truth, `${what}: ${actual} vs ${truth}`).toBeLessThanOrEqual(0.05);
}

/** A fraction of `n` requests within the binomial 99.9% interval of the truth. */
function nearShare(actual: number | undefined, truth: number, n: number, what: string): void {
  expect(actual, what).toBeDefined();
  expect(Math.abs((actual as number) - truth), `${what}: ${actual} vs ${truth} of ${n}`).toBeLessThanOrEqual(3.29 * Math.sqrt((truth * (1 - truth)) / n));
}

let metricsText: string;
let spans: Span[];
let original: Record<string, number>;
beforeAll(() => {
  const events: TraceEvent[] = [];
  original = flattenMetrics(simulate(MODEL, { seed: 5, trace: (e) => events.push(e), traceGraph: true }));
  const traces = otlpTraces(events, { layers: ['app'], entryServices: ['frontend'], traceIdPrefix: 0, seed: 5 });
  spans = readSpanText(JSON.stringify(traces), 'traces.json').spans;
  metricsText = servicegraphText(spans);
});

describe('a metrics-only import of faults that answer at once', () => {
  it('counts each failed request once: as the fault, not again as no work or no call', () => {
    const { edges } = readMetricTexts([{ file: 'servicegraph.prom', text: metricsText }]);
    const g = graphFromMetrics(edges, DURATION_MS / 1000);
    const fe = g.services.get('frontend')?.endpoints.get('default');
    const db = g.services.get('db')?.endpoints.get('default');
    nearShare(fe?.ownErrorRate, FAULT.frontend, fe?.requests ?? 0, 'frontend own error rate');
    nearShare(db?.ownErrorRate, FAULT.db, db?.requests ?? 0, 'db own error rate');
    // frontend's own work, over the requests its fault did not answer at once.
    near(fe?.ownWorkMs, OWN_MS.frontend, 'frontend own work');
    // Every request frontend served made its call to db: one per request, not 1 - 0.2.
    near(fe?.steps[0]?.calls[0]?.perRequest, 1, 'frontend -> db calls per request');
  });

  it('writes db\'s server-time buckets without its instant failures, frontend\'s call to db on every request, and a re-simulation gives the original\'s calls', () => {
    const imported = importTelemetry({ metrics: [{ file: 'servicegraph.prom', text: metricsText }], spans: [], windowSec: DURATION_MS / 1000, name: 'metrics-only', durationMs: DURATION_MS });
    const services = (imported.experiment.scenario as { services: Record<string, any> }).services;
    // The buckets are db's successful requests alone: exponential of mean 4 ms, so the first (2 ms) holds 1 - e^-0.5 of them.
    const hist = services.db.fleet.serviceMs as { dist: string; le: number[]; counts: number[] };
    expect(hist.dist).toBe('histogram');
    const served = hist.counts[hist.counts.length - 1] as number;
    nearShare(served / (original['edges.frontend->db.calls'] as number), 1 - FAULT.db, original['edges.frontend->db.calls'] as number, 'db requests in the histogram');
    expect(hist.le[0]).toBe(2);
    nearShare((hist.counts[0] as number) / served, 1 - Math.exp(-2 / OWN_MS.db), served, 'db\'s first bucket');
    nearShare(services.db.fleet.faults[0].probability, FAULT.db, original['edges.frontend->db.calls'] as number, 'db fault written');
    const call = services.frontend.endpoints.default.steps[1].calls;
    expect(call).toHaveLength(1);
    expect(call[0].probability).toBeUndefined();
    for (const p of imported.placeholders) {
      const keys = p.path.split('.');
      let at: Record<string, unknown> = imported.experiment;
      for (const k of keys.slice(0, -1)) at = at[k] as Record<string, unknown>;
      at[keys[keys.length - 1] as string] = p.path.endsWith('.concurrency') ? 64 : p.path.endsWith('.queueLimit') ? 'unlimited' : 1;
    }
    const again = flattenMetrics(simulate(imported.experiment.scenario, { seed: 6 }));
    near(again['edges.frontend->db.amplification'], original['edges.frontend->db.amplification'] as number, 'frontend -> db calls per operation');
  });

  it('from spans too: the calls per request are over the requests that did not fail on their own, as the fault written makes no call', () => {
    const fe = graphFromSpans(spans).services.get('frontend')?.endpoints.get('page');
    nearShare(fe?.ownErrorRate, FAULT.frontend, fe?.requests ?? 0, 'frontend own error rate');
    near(fe?.steps[0]?.calls[0]?.perRequest, 1, 'frontend -> db calls per request');
  });
});
