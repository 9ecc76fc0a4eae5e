/**
 * OTLP traces of a graph whose leaf services' endpoints have no steps (their fleets answer as a leaf
 * does): every attempt that reaches such a service has its SERVER span there, a child of the
 * attempt's CLIENT span, so that the servicegraph series computed from the traces (as the
 * Collector's connector pairs client and server spans) count the edges into leaf services.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { TraceEvent } from '../../src/model/trace.js';
import { otlpTraces } from '../../src/model/traceOtlp.js';
import { simulate } from '../../src/simulate.js';
import { flattenMetrics } from '../../src/sweep/flattenMetrics.js';
import { readMetricTexts, readSpanText, type Span } from '../../src/telemetry/index.js';
import { servicegraphText } from './servicegraphOf.js';

const sdk = (attempts: number, timeoutMs?: number) => [{ name: 'sdk', policy: { maxAttempts: attempts, backoff: { kind: 'constant', baseMs: 1 }, ...(timeoutMs === undefined ? {} : { perAttemptTimeoutMs: timeoutMs }) } }];

/**
 * web -> frontend (works, then calls users and db in parallel); users and db have no steps: users
 * fails 30% of its requests at once and sheds beyond a short queue, and its calls are retried; db is
 * slow now and then, and its calls time out and are retried while the first attempt is still served.
 */
const MODEL = {
  workloads: { web: { kind: 'open', rate: 200, durationMs: 3000, entry: { service: 'frontend', endpoint: 'page' }, stack: [{ name: 'app', policy: { maxAttempts: 2 } }] } },
  network: { hopMs: 0.5 },
  services: {
    frontend: {
      fleet: { kind: 'server', concurrency: 32, serviceMs: { dist: 'exponential', mean: 1 } },
      endpoints: { page: { steps: [{ kind: 'work' }, { kind: 'call', calls: [{ service: 'users', stack: sdk(3) }, { service: 'db', stack: sdk(2, 20) }] }] } },
    },
    users: { fleet: { kind: 'server', concurrency: 1, queueLimit: 2, serviceMs: { dist: 'exponential', mean: 3 }, faults: [{ fromMs: 0, probability: 0.3, status: 500 }] }, endpoints: { get: {} } },
    db: { fleet: { kind: 'server', concurrency: 16, serviceMs: { dist: 'exponential', mean: 8 } }, endpoints: { query: {} } },
  },
};

let spans: Span[];
let results: Record<string, number>;
beforeAll(() => {
  const events: TraceEvent[] = [];
  results = flattenMetrics(simulate(MODEL, { seed: 3, trace: (e) => events.push(e), traceGraph: true }));
  const traces = otlpTraces(events, { layers: [], workloadLayers: new Map([['web', ['app']]]), entryServices: ['frontend'], traceIdPrefix: 0, seed: 3 });
  spans = readSpanText(JSON.stringify(traces), 'traces.json').spans;
});

describe('OTLP traces: a SERVER span for every request at an endpoint without steps', () => {
  it('each attempt that reached a leaf service has exactly one SERVER child there, as many as the edge\'s calls', () => {
    const byId = new Map(spans.map((s) => [`${s.traceId}/${s.spanId}`, s]));
    const children = new Map<string, Span[]>();
    for (const s of spans) {
      if (s.kind !== 'server' || s.parentId === undefined) continue;
      const key = `${s.traceId}/${s.parentId}`;
      children.set(key, [...(children.get(key) ?? []), s]);
    }
    for (const leaf of ['users', 'db']) {
      const servers = spans.filter((s) => s.kind === 'server' && s.service === leaf);
      // Every request the leaf received (its refusals, faults and the drain included) is a SERVER span under a CLIENT attempt of frontend.
      expect(servers.length, leaf).toBe(results[`edges.frontend->${leaf}.calls`]);
      for (const s of servers) {
        const parent = byId.get(`${s.traceId}/${s.parentId}`);
        expect(parent?.kind, leaf).toBe('client');
        expect(parent?.service, leaf).toBe('frontend');
        expect(s.startUs).toBeGreaterThanOrEqual(parent!.startUs);
      }
      // No attempt has two.
      const attempts = spans.filter((s) => s.kind === 'client' && s.service === 'frontend' && children.get(`${s.traceId}/${s.spanId}`)?.some((c) => c.service === leaf));
      for (const a of attempts) expect(children.get(`${a.traceId}/${a.spanId}`)?.length).toBe(1);
    }
    // The leaves' own failures are SERVER spans in error; db's retried timeouts left attempts still served.
    expect(spans.filter((s) => s.kind === 'server' && s.service === 'users' && s.error).length).toBeGreaterThan(0);
    expect(results['edges.frontend->db.retries']).toBeGreaterThan(0);
    expect(results['edges.frontend->users.retries']).toBeGreaterThan(0);
  });

  it('the servicegraph series of the traces count the edges into the leaf services, paired client and server', () => {
    const { edges } = readMetricTexts([{ file: 'servicegraph.prom', text: servicegraphText(spans) }]);
    for (const leaf of ['users', 'db']) {
      const paired = edges.filter((e) => e.client === 'frontend' && e.server === leaf && e.connectionType === '');
      expect(paired.map((e) => e.requests), leaf).toEqual([results[`edges.frontend->${leaf}.calls`]]);
      expect(paired[0]?.serverTime.count).toBe(results[`edges.frontend->${leaf}.calls`]);
      // Nothing into a leaf is left unpaired (a virtual node named by a peer, or unknown).
      expect(edges.filter((e) => e.client === 'frontend' && e.connectionType !== '').map((e) => e.server)).toEqual([]);
    }
  });
});

describe('OTLP traces: a request refused by a service\'s maxInFlight is a SERVER span too', () => {
  // users admits 2 requests at a time; the rest are refused with 503 on arrival (with and without a
  // hop: the hop's arrival goes through accept, no hop through acceptAtOnce), and each refusal is a
  // SERVER span in error at users under the attempt that sent it.
  for (const hopMs of [0.5, 0]) {
    it(`every request that reached users is a SERVER span there, the refused ones in error (hop ${hopMs} ms)`, () => {
      const model = structuredClone(MODEL) as Record<string, any>;
      model.network = { hopMs };
      model.services.users = { ...model.services.users, maxInFlight: 2, fleet: { ...model.services.users.fleet, faults: [] } };
      const events: TraceEvent[] = [];
      const sim = simulate(model, { seed: 5, trace: (e) => events.push(e), traceGraph: true });
      const flat = flattenMetrics(sim);
      const refused = sim.services?.find((s) => s.service === 'users')?.refusedInFlight ?? 0;
      expect(refused).toBeGreaterThan(0);
      const traces = otlpTraces(events, { layers: [], workloadLayers: new Map([['web', ['app']]]), entryServices: ['frontend'], traceIdPrefix: 0, seed: 5 });
      const all = readSpanText(JSON.stringify(traces), 'traces.json').spans;
      const servers = all.filter((s) => s.kind === 'server' && s.service === 'users');
      expect(servers.length).toBe(flat['edges.frontend->users.calls']);
      // users' own fleet fails nothing here: its errors are the refusals, answered at once.
      const errors = servers.filter((s) => s.error);
      expect(errors.length).toBe(refused);
      for (const s of errors) expect(s.durationUs).toBe(0);
      const byId = new Map(all.map((s) => [`${s.traceId}/${s.spanId}`, s]));
      for (const s of servers) expect(byId.get(`${s.traceId}/${s.parentId}`)?.kind).toBe('client');
    });
  }
});
