import { describe, expect, it } from 'vitest';
import { resolveScenario } from '../../src/experiment/index.js';
import { interventionMarks } from '../../src/report/interventionMarks.js';
import { timeSeriesSpec, variantColors, type VlSpec } from '../../src/report/index.js';
import { compileLog, series } from './helpers.js';

function resolved(interventions: unknown[]) {
  const r = resolveScenario({
    workload: { kind: 'open', rate: 100, durationMs: 200_000 },
    stack: [{ name: 'client', policy: { maxAttempts: 3 } }],
    leaf: { kind: 'server', concurrency: 4, serviceMs: 10 },
    interventions,
  });
  if (!r.ok) throw new Error(r.errors.join('\n'));
  return r.scenario;
}

describe('timed interventions marked on the time series', () => {
  it('labels each intervention in words: when, and what it does', () => {
    const sc = resolved([
      { atMs: 120_000, set: { 'stack.0.policy.maxAttempts': 1 } },
      { atMs: 60_000, set: { 'stack.0.policy.budget': [{ kind: 'token-bucket' }], 'leaf.queueLimit': 50 } },
      { atMs: 150_000, set: { 'stack.0.policy.backoff.baseMs': 500 } },
    ]);
    expect(interventionMarks(sc)).toEqual([
      { atMs: 60_000, label: '60 s: retry budget token-bucket at client (starts empty); queue limit 50 at the server' },
      { atMs: 120_000, label: '2 min: retries off at client' },
      { atMs: 150_000, label: '2.5 min: client: backoff changed' },
    ]);
  });

  it('labels a cache warming and a service cap in a graph', () => {
    const r = resolveScenario({
      workload: { kind: 'burst', clients: 1, entry: { service: 'app' } },
      stack: [{ name: 'client', policy: { maxAttempts: 1 } }],
      services: {
        app: {
          fleet: { kind: 'server', serviceMs: 1 },
          endpoints: { get: { steps: [{ kind: 'call', calls: [{ service: 'db', cache: { capacity: 10, keys: 100, zipf: 0.8 } }] }] } },
        },
        db: { fleet: { kind: 'server', serviceMs: 1 }, endpoints: { get: {} } },
      },
      interventions: [{ atMs: 500, set: { 'services.app.endpoints.get.steps.0.calls.0.cache.warm': 10, 'services.db.maxInFlight': 20 } }],
    });
    if (!r.ok) throw new Error(r.errors.join('\n'));
    expect(interventionMarks(r.scenario)).toEqual([{ atMs: 500, label: '500 ms: cache db at app warmed with its 10 most popular keys; db admits at most 20 requests in flight' }]);
  });

  it('draws a dashed vertical rule at each moment in every panel, its label in a legend of its own, and compiles without a warning', () => {
    const marks = [
      { atMs: 3000, label: '3 s: retries off at client' },
      { atMs: 7000, label: '7 s: queue limit 5 at the server' },
    ];
    const runs = [{ label: 'default', variant: 'default', series: series(40, 250, () => 5, () => 1) }];
    const spec = timeSeriesSpec({ runs, windows: [], colors: variantColors(['default']), interventions: marks });
    expect((spec.datasets as Record<string, unknown>).interventions).toEqual([
      { at: 3, label: '3 s: retries off at client' },
      { at: 7, label: '7 s: queue limit 5 at the server' },
    ]);
    const views = spec.vconcat as Array<{ layer: Array<{ mark: { type: string }; encoding: Record<string, Record<string, unknown>>; data?: unknown }> }>;
    for (const v of views) {
      const rule = v.layer.find((l) => l.mark.type === 'rule');
      expect(rule?.data).toEqual({ name: 'interventions' });
      expect(rule?.encoding.x).toEqual({ field: 'at', type: 'quantitative' });
      expect(rule?.encoding.stroke).toMatchObject({ field: 'label', title: 'Intervention', scale: { domain: marks.map((m) => m.label) } });
    }
    expect(compileLog(spec as VlSpec)).toEqual([]);
    const none = timeSeriesSpec({ runs, windows: [], colors: variantColors(['default']) });
    expect(JSON.stringify(none)).not.toContain('rule');
  });
});
