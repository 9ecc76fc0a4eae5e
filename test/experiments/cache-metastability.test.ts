import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Cell, ExperimentPlan } from '../../src/experiment/index.js';
import type { SimulationResults } from '../../src/model/results.js';
import { runReplication } from '../../src/sweep/runPlan.js';
import { shippedPlan } from '../helpers/shipped.js';

const FILE = 'experiments/cache-metastability.json';

type Json = Record<string, any>;

function cell(p: ExperimentPlan, partName: string, variant: string, params: Record<string, unknown> = {}): Cell {
  const part = p.parts.find((x) => x.name === partName);
  const c = part?.cells.find((x) => x.variant === variant && Object.entries(params).every(([k, v]) => x.params[k] === v));
  if (!c) throw new Error(`no cell ${partName}/${variant} ${JSON.stringify(params)}`);
  return c;
}

function run(p: ExperimentPlan, c: Cell, replication: number): SimulationResults {
  const rec = runReplication(c, replication, p.seed);
  if (rec.state !== 'ok') throw new Error(rec.error);
  return rec.results;
}

/** Sum of a per-bin series over [fromMs, toMs) (1 s bins). */
function sum(r: SimulationResults, values: readonly number[], fromMs: number, toMs: number): number {
  let n = 0;
  r.timeSeries.tMs.forEach((t, i) => {
    if (t >= fromMs && t < toMs) n += values[i] as number;
  });
  return n;
}

function appCache(r: SimulationResults) {
  const c = r.services?.find((s) => s.service === 'app')?.caches?.db;
  if (!c) throw new Error('no cache db at app');
  return c;
}

function after(r: SimulationResults) {
  const w = r.windows?.find((x) => x.name === 'after');
  if (!w) throw new Error('no window "after"');
  expect([w.fromMs, w.toMs]).toEqual([60_000, 240_000]);
  return w;
}

/** Che's approximation (Che, Tung and Wang, IEEE JSAC 2002) of a warm LRU cache's hit ratio: K keys, Zipf s, capacity C. */
function che(k: number, s: number, capacity: number): number {
  const w = Array.from({ length: k }, (_, i) => (i + 1) ** -s);
  const total = w.reduce((a, b) => a + b, 0);
  const p = w.map((x) => x / total);
  const filled = (t: number) => p.reduce((a, pi) => a + 1 - Math.exp(-pi * t), 0);
  let lo = 0;
  let hi = 1e9;
  for (let i = 0; i < 200; i++) {
    const mid = (lo + hi) / 2;
    if (filled(mid) < capacity) lo = mid;
    else hi = mid;
  }
  return p.reduce((a, pi) => a + pi * (1 - Math.exp(-pi * lo)), 0);
}

describe('cache-metastability (shipped experiment)', () => {
  it('declares the case: K 10,000, capacity 1,000, s 0.8, no TTL, warm, coalescing, a flush at 60 s; db 16 x Exp(20 ms), FIFO, queue 1,000; 200 ms per attempt; 240 s; 1,100-1,350/s; 20 replications in full; warming at 120 s with the cache\'s capacity of keys, alone and with retries off', () => {
    const raw = JSON.parse(readFileSync(FILE, 'utf8')) as {
      parts: Array<{ name: string; replications: number; scenario: Json; variants: Record<string, Record<string, unknown>>; sweep?: { grid: Record<string, number[]> } }>;
    };
    for (const part of raw.parts) {
      expect(part.replications).toBe(20);
      const sc = part.scenario;
      expect(sc.workload.durationMs).toBe(240_000);
      expect(sc.cancellation).toBe(false);
      const call = sc.services.app.endpoints.get.steps[0].calls[0];
      // Coalescing, except where the operators' actions are tried on a run that the flush always collapses.
      expect(call.cache).toEqual({ capacity: 1000, keys: 10_000, zipf: 0.8, coalesce: part.name !== 'interventions', flushAtMs: [60_000] });
      expect(call.stack).toEqual([{ name: 'app', policy: { maxAttempts: 3, perAttemptTimeoutMs: 200, backoff: { kind: 'none' } } }]);
      expect(sc.services.db.fleet).toEqual({ kind: 'server', concurrency: 16, serviceMs: { dist: 'exponential', mean: 20 }, queueLimit: 1000, discipline: 'fifo', dropExpired: false });
      expect(sc.services.app.execution).toBe('async');
      expect(sc.metrics.windows[0]).toEqual({ name: 'after', fromMs: 60_000, toMs: 240_000, recoveryTime: true });
    }
    const load = raw.parts.find((x) => x.name === 'load');
    const rates = load?.sweep?.grid['workload.rate'] ?? [];
    expect([Math.min(...rates), Math.max(...rates)]).toEqual([1100, 1350]);
    const at = 'services.app.endpoints.get.steps.0.calls.0';
    expect(load?.variants['no-retries']).toEqual({ [`${at}.stack.0.policy.maxAttempts`]: 1 });
    // The operators' warming at 120 s fills the cache with as many of the most popular keys as it holds.
    const fix = raw.parts.find((x) => x.name === 'interventions');
    const capacity = fix?.scenario.services.app.endpoints.get.steps[0].calls[0].cache.capacity as number;
    expect(fix?.variants.warming).toEqual({ interventions: [{ atMs: 120_000, set: { [`${at}.cache.warm`]: capacity } }] });
    expect(fix?.variants['warming-retries-off']).toEqual({ interventions: [{ atMs: 120_000, set: { [`${at}.cache.warm`]: capacity, [`${at}.stack.0.policy.maxAttempts`]: 1 } }] });
    // Their paths resolve: the cache db at app warmed with `capacity` keys, and the call's one layer down to one attempt.
    const p = shippedPlan(FILE);
    const resolved = (variant: string) => cell(p, 'interventions', variant).scenario.interventions;
    const warm = { kind: 'warm', service: 'app', cache: 'db', keys: capacity };
    expect(resolved('warming')).toEqual([{ atMs: 120_000, paths: [`${at}.cache.warm`], changes: [warm] }]);
    const both = resolved('warming-retries-off');
    expect(both?.map((i) => [i.atMs, i.paths])).toEqual([[120_000, [`${at}.cache.warm`, `${at}.stack.0.policy.maxAttempts`]]]);
    expect(both?.[0]?.changes).toEqual([
      warm,
      { kind: 'policy', stack: { kind: 'call', service: 'app', endpoint: 'get', step: 0, call: 0 }, layer: 0, policy: expect.objectContaining({ maxAttempts: 1, perAttemptTimeoutMs: 200 }) },
    ]);
  });

  it('a collapsed run lives on its hits: after the flush every success is a hit, answers come too late to fill, and db keeps working for nobody', () => {
    const p = shippedPlan(FILE);
    const r = run(p, cell(p, 'load', 'retries', { 'workload.rate': 1350 }), 0);
    const c = appCache(r);
    // Before the flush: the warm LRU cache of Che's approximation.
    const warm = sum(r, c.timeSeries.hits, 1000, 60_000) / sum(r, c.timeSeries.lookups, 1000, 60_000);
    expect(Math.abs(warm - che(10_000, 0.8, 1000))).toBeLessThan(0.02);
    const w = after(r);
    expect(w.recovered).toBe(false);
    expect(w.recoveryMs).toBeNull();
    // Over the last 30 s: successes (an operation succeeds by a hit or by a fill's call) are the hits.
    const ok = sum(r, r.timeSeries.successes, 210_000, 240_000);
    const hits = sum(r, c.timeSeries.hits, 210_000, 240_000);
    const lookups = sum(r, c.timeSeries.lookups, 210_000, 240_000);
    expect(ok).toBeGreaterThanOrEqual(hits * 0.99);
    expect(ok).toBeLessThan(hits * 1.02);
    // Goodput is the hit ratio times the demand, well under the 90% of demand that recovery needs.
    expect(ok / lookups).toBeLessThan(0.6);
    // db serves calls whose attempt has timed out: wasted work, more than a tenth of its 16 workers' time.
    const db = r.services?.find((x) => x.service === 'db');
    expect(db?.wastedWorkMs ?? 0).toBeGreaterThan(0.1 * 16 * 180_000);
    // Every lookup of an operation is one, at one cache: the demand.
    expect(lookups).toBe(sum(r, r.timeSeries.arrivalsFirst, 210_000, 240_000));
  });

  it('the same arrivals with one attempt recover; below one timeout of work in db queue (160) nothing collapses', () => {
    const p = shippedPlan(FILE);
    const once = run(p, cell(p, 'load', 'no-retries', { 'workload.rate': 1150 }), 0);
    expect(after(once).recovered).toBe(true);
    // A short queue: 80 < 16 workers x 200 ms / 20 ms = 160; at 1,350/s with retries, for 3 seeds.
    const short = cell(p, 'queue-limit', 'retries', { 'services.db.fleet.queueLimit': 80 });
    for (const rep of [0, 1, 2]) {
      const r = run(p, short, rep);
      const w = after(r);
      expect({ rep, recovered: w.recovered }).toEqual({ rep, recovered: true });
      // Back within seconds of the flush, the cache refilled to its warm hit ratio.
      expect(w.recoveryMs).not.toBeNull();
      expect(w.recoveryMs as number).toBeLessThan(20_000);
      const c = appCache(r);
      expect(sum(r, c.timeSeries.hits, 200_000, 240_000) / sum(r, c.timeSeries.lookups, 200_000, 240_000)).toBeGreaterThan(0.4);
    }
  });
});
