import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { simulate } from '../../src/simulate.js';
import { cli, jsonlRecords, leftoverTempFiles, spawnCli, tempDir, writeExperiment } from '../helpers/reliability.js';

/**
 * Runaway configurations: policies that never stop and workloads that never drain end at the
 * run's horizon or event cap, the results say `truncated` and why, and no configuration hangs or
 * crashes the tool.
 */

/** tenacity's defaults: stop_never, wait_none, retry on every failure, no deadline (jd/tenacity). */
const TENACITY = { maxAttempts: 'unlimited', backoff: { kind: 'none' } };
/** A server that answers every request 500, at once or after `latencyMs`. */
const failing = (latencyMs?: number) => ({
  kind: 'server',
  serviceMs: 0,
  faults: [{ probability: 1, status: 500, ...(latencyMs !== undefined ? { latencyMs } : {}) }],
});
/** An open loop of 10,000/s into a server that serves 100/s, with an unlimited queue, for an hour. */
const overload = (over: Record<string, unknown>) =>
  simulate({
    workload: { kind: 'open', rate: 10_000, durationMs: 3_600_000 },
    stack: [{ name: 'app', policy: { maxAttempts: 1 } }],
    leaf: { kind: 'server', serviceMs: 10 },
    ...over,
  });
const nonZero = (counts: Record<string, number>) => Object.fromEntries(Object.entries(counts).filter(([, n]) => n > 0));

describe('runaway configurations stop at the horizon or the event cap and say so', () => {
  it('an open loop 100 times above capacity with an unlimited queue stops at the in-flight cap, not out of memory', () => {
    const r = overload({ maxInFlight: 1000 });
    expect(r.truncated).toBe('in-flight-cap');
    expect(r.operations.unfinished).toBe(1001);
    expect(r.operations.offered - r.operations.succeeded).toBe(1001);
    expect(r.truncatedReason).toBe(`stopped at the in-flight cap (maxInFlight 1000) at ${r.simulatedMs.toFixed(1)} ms with 1001 operations unfinished`);
    // In flight grows by about 9,900/s (10,000/s arrive, 100/s are served): the cap is reached near 101 ms.
    expect(r.operations.succeeded).toBe(Math.floor(r.simulatedMs / 10));
  });

  it('a burst or a closed loop holds at most one operation per client: the in-flight cap does not apply to them', () => {
    const r = simulate({ workload: { kind: 'burst', clients: 20 }, stack: [{ name: 'app', policy: { maxAttempts: 1 } }], leaf: { kind: 'server', serviceMs: 10 }, maxInFlight: 10 });
    expect(r.truncated).toBeNull();
    expect(r.operations).toEqual({ offered: 20, succeeded: 20, failed: 0, unfinished: 0 });
  });

  it('the default in-flight cap (10 million) leaves an ordinary overload alone: the same open loop runs to its horizon', () => {
    const r = overload({ horizonMs: 2_000 });
    expect(r.truncated).toBe('horizon');
    expect(r.operations.unfinished).toBeGreaterThan(19_000);
  });

  it("tenacity's defaults against a leaf that fails at once: every retry happens at t = 0, the event cap ends it", () => {
    const r = simulate({ workload: { kind: 'burst', clients: 1 }, stack: [{ name: 'app', policy: TENACITY }], leaf: failing(), maxEvents: 50_000 });
    expect(r.truncated).toBe('event-cap');
    expect(r.truncatedReason).toBe('stopped at the event cap (maxEvents 50000) at 0.0 ms with 1 operations unfinished');
    expect(r.events).toBe(50_000);
    expect(r.simulatedMs).toBe(0);
    expect(r.operations).toEqual({ offered: 1, succeeded: 0, failed: 0, unfinished: 1 });
    expect(nonZero(r.giveUps)).toEqual({});
    expect(r.attempts[0]).toMatchObject({ first: 1, retries: 49_999 });
    expect(r.leafCalls).toBe(50_000);
    expect(r.server.faulted).toBe(50_000);
  });

  it("tenacity's defaults against a leaf that fails after 5 ms: one attempt every 5 ms until the horizon", () => {
    const r = simulate({ workload: { kind: 'burst', clients: 3 }, stack: [{ name: 'app', policy: TENACITY }], leaf: failing(5), horizonMs: 1000 });
    expect(r.truncated).toBe('horizon');
    expect(r.truncatedReason).toBe('stopped at the horizon (horizonMs 1000) with 3 operations unfinished');
    expect(r.simulatedMs).toBe(1000);
    // Attempts at 0, 5, ..., 1000 ms for each of the 3 operations.
    expect(r.leafCalls).toBe(3 * 201);
    expect(r.attempts[0]).toMatchObject({ first: 3, retries: 600 });
    expect(r.operations).toEqual({ offered: 3, succeeded: 0, failed: 0, unfinished: 3 });
  });

  it('unlimited retries in three nested layers with a tiny event cap', () => {
    const r = simulate({
      workload: { kind: 'burst', clients: 1 },
      stack: ['app', 'sdk', 'proxy'].map((name) => ({ name, policy: TENACITY })),
      leaf: failing(),
      maxEvents: 1000,
    });
    expect(r.truncated).toBe('event-cap');
    expect(r.truncatedReason).toBe('stopped at the event cap (maxEvents 1000) at 0.0 ms with 1 operations unfinished');
    // The innermost layer never gives up, so the layers above never see an answer.
    expect(r.attempts.map((a) => [a.layer, a.first, a.retries])).toEqual([
      ['app', 1, 0],
      ['sdk', 1, 0],
      ['proxy', 1, 999],
    ]);
    expect(r.leafCalls).toBe(1000);
  });

  it('unlimited attempts against a leaf that never answers, with a per-attempt timeout: one attempt every 250 ms until the horizon', () => {
    const r = simulate({
      workload: { kind: 'burst', clients: 1 },
      stack: [{ name: 'app', policy: { maxAttempts: 'unlimited', perAttemptTimeoutMs: 250, backoff: { kind: 'none' } } }],
      leaf: { kind: 'script', script: ['hang'] },
      horizonMs: 10_000,
    });
    expect(r.truncated).toBe('horizon');
    expect(r.truncatedReason).toBe('stopped at the horizon (horizonMs 10000) with 1 operations unfinished');
    expect(r.leafCalls).toBe(41);
  });

  it('an open loop far above capacity with an unlimited queue stops at the horizon, the backlog counted', () => {
    const r = simulate(
      {
        workload: { kind: 'open', rate: 20_000, durationMs: 1e9 },
        stack: [{ name: 'app', policy: { maxAttempts: 1 } }],
        leaf: { kind: 'server', concurrency: 1, serviceMs: 10 },
        horizonMs: 2000,
      },
      { seed: 7 },
    );
    expect(r.truncated).toBe('horizon');
    expect(r.simulatedMs).toBe(2000);
    expect(r.truncatedReason).toBe(`stopped at the horizon (horizonMs 2000) with ${r.operations.unfinished} operations unfinished`);
    expect(r.operations.offered).toBeGreaterThan(39_000);
    expect(r.operations.offered).toBeLessThan(41_000);
    // One worker of 10 ms served 199 or 200 requests in 2 s; everything else is still waiting.
    expect(r.server.served).toBeGreaterThanOrEqual(199);
    expect(r.server.served).toBeLessThanOrEqual(200);
    expect(r.operations.succeeded).toBe(r.server.served);
    expect(r.operations.unfinished).toBe(r.operations.offered - r.server.served);
    expect(r.server.inServiceAtEnd).toBe(1);
    expect(r.server.queuedAtEnd).toBe(r.leafCalls - r.server.served - 1);
    expect(r.server.maxQueue).toBe(r.server.queuedAtEnd);
  });

  it('the same overload with a tiny event cap stops there', () => {
    const r = simulate({
      workload: { kind: 'open', rate: 20_000, durationMs: 1e9 },
      stack: [{ name: 'app', policy: { maxAttempts: 1 } }],
      leaf: { kind: 'server', concurrency: 1, serviceMs: 10 },
      maxEvents: 5000,
    });
    expect(r.truncated).toBe('event-cap');
    expect(r.events).toBe(5000);
    expect(r.truncatedReason).toBe(`stopped at the event cap (maxEvents 5000) at ${r.simulatedMs.toFixed(1)} ms with ${r.operations.unfinished} operations unfinished`);
    expect(r.operations.unfinished).toBeGreaterThan(4000);
  });

  it('a closed loop of instant operations that never ends stops at the event cap', () => {
    const r = simulate({
      workload: { kind: 'closed', clients: 5, thinkMs: 0, durationMs: 1e12 },
      stack: [{ name: 'app' }],
      leaf: { kind: 'server', concurrency: 'unlimited', serviceMs: 0 },
      maxEvents: 10_000,
    });
    expect(r.truncated).toBe('event-cap');
    expect(r.truncatedReason).toBe('stopped at the event cap (maxEvents 10000) at 0.0 ms with 0 operations unfinished');
    expect(r.operations.succeeded).toBe(5000);
  });
});

describe('`retrystorm run` on the worst of them: no hang, TRUNCATED printed, valid files written', () => {
  const experiments = {
    tenacity: {
      name: 'tenacity-defaults',
      description: "tenacity's defaults (never stop, no wait) against a leaf that always fails",
      scenario: { workload: { kind: 'burst', clients: 1 }, stack: [{ name: 'app', policy: TENACITY }], leaf: failing(), maxEvents: 2_000_000 },
    },
    overload: {
      name: 'never-drains',
      description: 'an open loop at 20 times capacity, an unlimited queue, arrivals that never stop',
      scenario: {
        workload: { kind: 'open', rate: 20_000, durationMs: 1e9 },
        stack: [{ name: 'app', policy: { maxAttempts: 'unlimited', perAttemptTimeoutMs: 100, backoff: { kind: 'none' } } }],
        leaf: { kind: 'server', concurrency: 1, serviceMs: 1 },
        horizonMs: 3000,
      },
    },
    sweep: {
      name: 'nested-unlimited',
      description: 'three layers retrying forever, a sweep of truncated runs',
      scenario: { workload: { kind: 'burst', clients: 1 }, stack: ['app', 'sdk', 'proxy'].map((name) => ({ name, policy: TENACITY })), leaf: failing(), maxEvents: 20_000 },
      sweep: { grid: { 'workload.clients': [1, 2] } },
      replications: 2,
    },
  };

  it('runs them all within 60 s and writes complete, truncated results', async () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'in'));
    for (const [file, body] of Object.entries(experiments)) writeExperiment(join(dir, 'in'), `${file}.json`, body);
    const out = join(dir, 'out');
    const r = await spawnCli(['run', join(dir, 'in'), '--out', out, '--workers', '2'], { timeoutMs: 60_000 });
    expect(r.timedOut).toBe(false);
    expect(r.signal).toBeNull();
    expect(r.stderr).not.toMatch(/internal error|\n\s+at /);
    expect(r.code).toBe(0);

    for (const name of ['tenacity-defaults', 'never-drains']) {
      const results = JSON.parse(readFileSync(join(out, name, 'results.json'), 'utf8')) as { truncated: string; truncatedReason: string; experiment: string };
      expect(results.experiment).toBe(name);
      expect(r.stdout).toContain(`TRUNCATED: ${results.truncatedReason}\n`);
      const [record] = jsonlRecords(join(out, name, 'results.jsonl'));
      expect(record?.state).toBe('ok');
      expect(record?.results.truncatedReason).toBe(results.truncatedReason);
      const csv = readFileSync(join(out, name, 'summary.csv'), 'utf8');
      expect(csv).toContain('\nmain,default,ok,truncated,1,1,0,1,1\n');
      expect(readFileSync(join(out, name, 'index.html'), 'utf8')).toMatch(/^<!doctype html>[\s\S]*<\/html>\n?$/);
    }
    const tenacity = JSON.parse(readFileSync(join(out, 'tenacity-defaults', 'results.json'), 'utf8')) as { truncated: string; truncatedReason: string; leafCalls: number };
    expect(tenacity).toMatchObject({ truncated: 'event-cap', truncatedReason: 'stopped at the event cap (maxEvents 2000000) at 0.0 ms with 1 operations unfinished', leafCalls: 2_000_000 });
    const overload = JSON.parse(readFileSync(join(out, 'never-drains', 'results.json'), 'utf8')) as { truncated: string; truncatedReason: string };
    expect(overload.truncated).toBe('horizon');
    expect(overload.truncatedReason).toMatch(/^stopped at the horizon \(horizonMs 3000\) with \d+ operations unfinished$/);

    const records = jsonlRecords(join(out, 'nested-unlimited', 'results.jsonl'));
    expect(records).toHaveLength(4);
    for (const rec of records) {
      expect(rec.results.truncated).toBe('event-cap');
      expect(rec.results.truncatedReason).toBe('stopped at the event cap (maxEvents 20000) at 0.0 ms with ' + rec.params['workload.clients'] + ' operations unfinished');
    }
    const summary = JSON.parse(readFileSync(join(out, 'nested-unlimited', 'summary.json'), 'utf8')) as { cells: Array<{ metrics: Record<string, { mean: number }> }> };
    expect(summary.cells.map((c) => c.metrics['truncated']?.mean)).toEqual([1, 1]);
    expect(leftoverTempFiles(out)).toEqual([]);
  });
});

describe('truncation in what `run` prints and in the report', () => {
  const endless = {
    name: 'endless',
    description: 'unlimited attempts, no wait, no deadline',
    scenario: { workload: { kind: 'burst', clients: 1 }, stack: [{ name: 'app', policy: TENACITY }], leaf: failing(), maxEvents: 10_000 },
  };

  it('a single truncated run prints TRUNCATED with the reason', async () => {
    const dir = tempDir();
    const r = await cli(['run', writeExperiment(dir, 'e.json', endless), '--out', dir]);
    expect(r.code).toBe(0);
    expect(r.out).toContain('\nTRUNCATED: stopped at the event cap (maxEvents 10000) at 0.0 ms with 1 operations unfinished\n');
  });

  // The report (src/report) has no notice of truncation: the body of index.html never mentions it.
  it('the report says the run was truncated, and why', async () => {
    const dir = tempDir();
    expect((await cli(['run', writeExperiment(dir, 'e.json', endless), '--out', dir, '--quiet'])).code).toBe(0);
    const body = readFileSync(join(dir, 'endless', 'index.html'), 'utf8').replace(/<script\b[^>]*>[\s\S]*?<\/script>/g, '');
    expect(body).toMatch(/truncated/i);
    expect(body).toContain('stopped at the event cap (maxEvents 10000)');
  });

  // printRunSummary (src/cli/printResults.ts) prints a sweep's table without any sign of truncation.
  it('a sweep whose runs were truncated says so when it prints its table', async () => {
    const dir = tempDir();
    const sweep = { ...endless, name: 'endless-sweep', sweep: { grid: { 'workload.clients': [1, 2] } }, replications: 2 };
    const r = await cli(['run', writeExperiment(dir, 'e.json', sweep), '--out', dir, '--workers', '1']);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/TRUNCATED/);
  });
});

describe('configurations whose memory grows with a setting, not with the event cap', () => {
  // A heap of 128 MB makes the failure come sooner; these values exhaust any heap.
  const heap = ['--max-old-space-size=128'];

  async function expectCleanEnd(body: unknown, field: RegExp): Promise<void> {
    const dir = tempDir();
    const file = writeExperiment(dir, 'e.json', body);
    const r = await spawnCli(['run', file, '--out', join(dir, 'out'), '--quiet'], { timeoutMs: 60_000, nodeArgs: heap });
    expect(r.timedOut).toBe(false);
    expect(r.stderr).not.toMatch(/FATAL ERROR|out of memory|internal error/);
    expect(r.signal).toBeNull();
    expect([0, 2]).toContain(r.code);
    if (r.code === 2) expect(r.stderr).toMatch(field);
  }

  // Model builds per-instance state for every instance up front (Array.from({ length: instances })).
  it('a billion instances of a layer for two clients', async () => {
    await expectCleanEnd(
      { name: 'instances', scenario: { workload: { kind: 'burst', clients: 2 }, stack: [{ name: 'app', instances: 1e9 }], leaf: { kind: 'server', serviceMs: 5 }, maxEvents: 100 } },
      /scenario\.stack\.0\.instances/,
    );
  });

  // The time series get one bin per timeSeriesBinMs of simulated time: 1e9 bins for a 1 s run.
  it('a time-series bin of a nanosecond over a one-second run', async () => {
    await expectCleanEnd(
      { name: 'bins', scenario: { workload: { kind: 'burst', clients: 2 }, stack: [{ name: 'app' }], leaf: { kind: 'server', serviceMs: 1000 }, metrics: { timeSeriesBinMs: 1e-6 } } },
      /scenario\.metrics\.timeSeriesBinMs/,
    );
  });
});
