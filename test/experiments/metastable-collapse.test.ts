import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Cell, ExperimentPlan } from '../../src/experiment/index.js';
import type { SimulationResults } from '../../src/model/results.js';
import { runReplication, type ReplicationRecord } from '../../src/sweep/runPlan.js';
import { runSweep } from '../../src/sweep/runSweep.js';
import { VERSION } from '../../src/version.js';
import { shippedPlan } from '../helpers/shipped.js';

const FILE = 'experiments/metastable-collapse.json';
const text = readFileSync(FILE, 'utf8');

function plan(set: Array<[string, unknown]> = []): ExperimentPlan {
  return shippedPlan(FILE, true, set);
}

function part(p: ExperimentPlan, name: string) {
  const found = p.parts.find((x) => x.name === name);
  if (!found) throw new Error(`no part ${name}`);
  return found;
}

function cell(p: ExperimentPlan, partName: string, variant: string, params: Record<string, unknown> = {}): Cell {
  const c = part(p, partName).cells.find(
    (x) => x.variant === variant && Object.entries(params).every(([k, v]) => x.params[k] === v),
  );
  if (!c) throw new Error(`no cell ${partName}/${variant} ${JSON.stringify(params)}`);
  return c;
}

function run(p: ExperimentPlan, c: Cell, replication: number): SimulationResults {
  const rec = runReplication(c, replication, p.seed);
  if (rec.state !== 'ok') throw new Error(rec.error);
  return rec.results;
}

/** Successes per second over [fromMs, toMs) from a run's time series. */
function goodput(r: SimulationResults, fromMs: number, toMs: number): number {
  const ts = r.timeSeries;
  let n = 0;
  ts.tMs.forEach((t, i) => {
    if (t >= fromMs && t < toMs) n += ts.successes[i] as number;
  });
  return n / ((toMs - fromMs) / 1000);
}

/** The experiment's window `after` (metrics.windows, 90 s <= t < 300 s), checked against the run's time series. */
function after(r: SimulationResults) {
  const w = r.windows?.find((x) => x.name === 'after');
  if (!w) throw new Error('no window "after"');
  expect([w.fromMs, w.toMs]).toEqual([90_000, 300_000]);
  expect(w.goodputPerSec).toBeCloseTo(goodput(r, 90_000, 300_000), 9);
  return w;
}

/** The experiment's definition: not recovered by the end of the window `after` (its last 30 s under 90% of the demand offered then). */
function collapsedAtEnd(r: SimulationResults): boolean {
  const w = after(r);
  // Recovered runs are back at about the 40/s demand, collapsed ones near 0: the window's verdict agrees with the series.
  expect(w.recovered ? goodput(r, 270_000, 300_000) > 30 : goodput(r, 270_000, 300_000) < 30).toBe(true);
  return !w.recovered;
}

function mean(xs: number[]): number {
  return xs.reduce((a, b) => a + b, 0) / xs.length;
}

describe('metastable-collapse (shipped experiment, reduced)', () => {
  it('spike: immediate and short-jitter retries stay collapsed; no retries, 30 s jitter, the shared token bucket and adaptive throttling recover', async () => {
    const p = plan([['parts.0.replications', 8]]);
    const spike = part(p, 'spike');
    const out = mkdtempSync(join(tmpdir(), 'retrystorm-metastable-'));
    const result = await runSweep(
      { ...p, parts: [spike] },
      {
        outDir: out,
        workers: 2,
        manifest: {
          experiment: p.name,
          seed: p.seed,
          version: VERSION,
          sourceSha256: createHash('sha256').update(text).digest('hex'),
          source: text,
          quick: true,
          set: [['parts.0.replications', 8]],
        },
      },
    );
    expect(result.errored).toEqual([]);
    // Per-replication collapse, from results.jsonl (each run's window `after`).
    const records = readFileSync(join(out, 'results.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as ReplicationRecord);
    const collapsed = new Map<string, number>();
    const runs = new Map<string, number>();
    for (const rec of records) {
      if (rec.state !== 'ok') continue;
      runs.set(rec.variant, (runs.get(rec.variant) ?? 0) + 1);
      if (collapsedAtEnd(rec.results)) collapsed.set(rec.variant, (collapsed.get(rec.variant) ?? 0) + 1);
    }
    const fraction = (v: string) => (collapsed.get(v) ?? 0) / (runs.get(v) ?? NaN);
    expect(runs.get('immediate')).toBe(8);
    expect(fraction('immediate')).toBeGreaterThanOrEqual(0.75);
    expect(fraction('jitter-1s')).toBeGreaterThanOrEqual(0.75);
    for (const v of ['no-retries', 'jitter-30s', 'token-bucket', 'adaptive-10s', 'adaptive-120s']) {
      expect({ variant: v, collapsed: fraction(v) }).toEqual({ variant: v, collapsed: 0 });
    }
    // The summary's mean of windows.after.recovered is the fraction of replications that recovered.
    const summary = result.summary;
    for (const v of ['immediate', 'jitter-1s', 'no-retries', 'jitter-30s', 'token-bucket', 'adaptive-10s', 'adaptive-120s']) {
      expect(summary?.cells.find((c) => c.variant === v)?.metrics['windows.after.recovered']?.mean).toBeCloseTo(1 - fraction(v), 12);
    }
    // Collapsed runs send every operation's 3 attempts: amplification near 3; recovered runs near 1.
    const amp = (v: string) => summary?.cells.find((c) => c.variant === v)?.metrics.amplification?.mean ?? NaN;
    expect(amp('immediate')).toBeGreaterThan(2.4);
    expect(amp('no-retries')).toBe(1);
    expect(amp('jitter-30s')).toBeLessThan(1.2);
    expect(amp('token-bucket')).toBeLessThan(1.1);
  });

  it('before the spike the server is in its stable state: about 67 requests in flight (1.67 s each) and 40 successes/s', () => {
    const p = plan();
    const r = run(p, cell(p, 'spike', 'no-retries'), 0);
    const ts = r.timeSeries;
    const inFlight = mean(ts.inFlight.slice(2, 19));
    expect(inFlight).toBeGreaterThan(55);
    expect(inFlight).toBeLessThan(80);
    expect(goodput(r, 2000, 19_000)).toBeGreaterThan(34);
    expect(goodput(r, 2000, 19_000)).toBeLessThan(46);
    // Without retries the server always recovers: every operation offered after the spike succeeds.
    expect(goodput(r, 270_000, 300_000)).toBeGreaterThan(34);
  });

  it('a collapsed run: every attempt times out, 120 attempts/s arrive and the server never completes one in time again', () => {
    const p = plan();
    const c = cell(p, 'spike', 'immediate');
    let r: SimulationResults | undefined;
    for (let rep = 0; rep < 4 && r === undefined; rep++) {
      const x = run(p, c, rep);
      if (collapsedAtEnd(x)) r = x;
    }
    if (r === undefined) throw new Error('no collapsed replication of immediate retries in 4');
    const ts = r.timeSeries;
    const arrivals = mean(ts.arrivalsFirst.slice(200, 290).map((f, i) => f + (ts.arrivalsRetry[200 + i] as number)));
    expect(arrivals).toBeGreaterThan(110);
    expect(arrivals).toBeLessThan(130);
    expect(goodput(r, 100_000, 300_000)).toBe(0);
    // In flight grows without bound: the server completes under 100/s while 120/s arrive.
    expect(ts.busy[290] as number).toBeGreaterThan((ts.busy[100] as number) + 1000);
    expect(r.server.wastedWorkMs).toBeGreaterThan(0);
  });

  it('knife edge: immediate retries survive a 3 s spike to 70/s but not a 12 s spike to 100/s', () => {
    const p = plan();
    const short = cell(p, 'knife-edge', 'default', { 'workload.rate.spikeRatePerSec': 70, 'workload.rate.durationMs': 3000 });
    const long = cell(p, 'knife-edge', 'default', { 'workload.rate.spikeRatePerSec': 100, 'workload.rate.durationMs': 12000 });
    for (let rep = 0; rep < 4; rep++) {
      expect(collapsedAtEnd(run(p, short, rep))).toBe(false);
      expect(collapsedAtEnd(run(p, long, rep))).toBe(true);
    }
  });

  it('ramp: a slow ramp to 80/s collapses even the 30 s jittered backoff, but not the token bucket', () => {
    const p = plan();
    expect(collapsedAtEnd(run(p, cell(p, 'ramp', 'jitter-30s'), 0))).toBe(true);
    expect(collapsedAtEnd(run(p, cell(p, 'ramp', 'token-bucket'), 0))).toBe(false);
  });

  it('SRE storm: retries grow by about 100/s each second; an "overloaded" code sends none; dropping the input to 9,000/s ends the storm', () => {
    const p = plan([['parts.3.scenario.workload.durationMs', 40_000]]);
    const storm = run(p, cell(p, 'sre-storm', 'retry-every-1s'), 0);
    const retries = storm.timeSeries.arrivalsRetry;
    // 100 excess/s from t = 0, each retried a second later: about 100 x t retries/s for the first seconds.
    expect(retries[0]).toBe(0);
    expect(retries[3] as number).toBeGreaterThan(100);
    expect(retries[10] as number).toBeGreaterThan(retries[3] as number);
    expect(retries[10] as number).toBeGreaterThan(500);
    expect(storm.amplification).toBeGreaterThan(1.1);
    expect(storm.server.served / 40).toBeGreaterThan(9900); // the server completes its 10,000/s throughout
    const overloaded = run(p, cell(p, 'sre-storm', 'overloaded-code'), 0);
    expect(overloaded.attempts[0]?.retries).toBe(0);
    expect(overloaded.giveUps['not-retryable']).toBeGreaterThan(0);
    const drop = run(p, cell(p, 'sre-storm', 'drop-to-9000'), 0);
    // Quick mode drops the input at t = 30 s: the retries already scheduled drain within a few seconds, then none.
    expect(drop.timeSeries.arrivalsRetry[25] as number).toBeGreaterThan(500);
    expect(drop.timeSeries.arrivalsRetry.slice(35, 40)).toEqual([0, 0, 0, 0, 0]);
  });
});
