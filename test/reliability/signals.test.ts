import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { InterruptHandlers } from '../../src/cli/interrupts.js';
import { jsonlRecords, spawnCli, tempDir, writeExperiment } from '../helpers/reliability.js';

/**
 * Ctrl-C and SIGTERM stop every shape of run: each replication runs in a worker thread whose run
 * loop watches a shared flag, so the main thread is free to take the signal and the runs in flight
 * stop. The bound of 5 s is a bound against hanging (a run here would take hours), not a speed check.
 */

/** A closed loop that would run for about a day of wall time (bins of 1,000 s keep its results small, so no size warning is printed). */
function endless(name: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name,
    seed: 3,
    scenario: {
      workload: { kind: 'closed', clients: 200, thinkMs: 1, durationMs: 1e9 },
      stack: [{ name: 'client', policy: { maxAttempts: 3 } }],
      leaf: { kind: 'server', serviceMs: 1, concurrency: 100 },
      horizonMs: 1e9,
      maxEvents: 1e12,
      metrics: { timeSeriesBinMs: 1e6 },
    },
    ...extra,
  };
}

/** Start `run`, send SIGINT once `ready()` holds (polled), and return the result and the ms from signal to exit. */
async function interruptWhen(args: string[], ready: () => boolean): Promise<{ code: number | null; stderr: string; afterSignalMs: number; timedOut: boolean }> {
  const run = spawnCli([...args, '--quiet'], { timeoutMs: 60_000 });
  let sentAt = 0;
  const poll = setInterval(() => {
    if (sentAt === 0 && ready()) {
      sentAt = Date.now();
      run.child.kill('SIGINT');
    }
  }, 20);
  const r = await run.finally(() => clearInterval(poll));
  return { code: r.code, stderr: r.stderr, afterSignalMs: sentAt === 0 ? NaN : Date.now() - sentAt, timedOut: r.timedOut };
}

/** Whether results.jsonl exists and `ms` have passed since it was first seen. */
function startedFor(path: string, ms: number): () => boolean {
  let seenAt = 0;
  return () => {
    if (!existsSync(path)) return false;
    if (seenAt === 0) seenAt = Date.now();
    return Date.now() - seenAt >= ms;
  };
}

describe('SIGINT stops a run within 5 s with exit code 130 and valid partial results', () => {
  it('a single run: results.jsonl and results.json hold the partial run, truncated "interrupted"', async () => {
    const dir = tempDir();
    const file = writeExperiment(dir, 'e.json', endless('endless-single'));
    const out = join(dir, 'out');
    const expDir = join(out, 'endless-single');
    const r = await interruptWhen(['run', file, '--out', out], startedFor(join(expDir, 'results.jsonl'), 3000));
    expect(r.timedOut).toBe(false);
    expect(r.code).toBe(130);
    expect(r.afterSignalMs).toBeLessThan(5000);
    expect(r.stderr).toBe(`interrupted: the partial run (truncated: "interrupted") is in ${relative(process.cwd(), join(expDir, 'results.json'))}; run again to get the whole run\n`);
    const records = jsonlRecords(join(expDir, 'results.jsonl'));
    expect(records).toHaveLength(1);
    const rec = records[0] as Record<string, any>;
    expect(rec.state).toBe('ok');
    expect(rec.results.truncated).toBe('interrupted');
    const ops = rec.results.operations;
    expect(ops.offered).toBe(ops.succeeded + ops.failed + ops.unfinished);
    expect(rec.results.truncatedReason).toBe(`interrupted at ${rec.results.simulatedMs.toFixed(1)} ms with ${ops.unfinished} operations unfinished`);
    const single = JSON.parse(readFileSync(join(expDir, 'results.json'), 'utf8')) as Record<string, any>;
    expect(single).toEqual({ experiment: 'endless-single', ...rec.results });
    expect(readdirSync(expDir).sort()).toEqual(['results.json', 'results.jsonl', 'run.json']);
  }, 60_000);

  it('a sweep with fewer tasks than workers: the runs in flight stop and none is recorded', async () => {
    const dir = tempDir();
    const file = writeExperiment(dir, 'e.json', endless('endless-pair', { replications: 2 }));
    const out = join(dir, 'out');
    const expDir = join(out, 'endless-pair');
    const r = await interruptWhen(['run', file, '--out', out, '--workers', '4'], startedFor(join(expDir, 'results.jsonl'), 1500));
    expect(r.timedOut).toBe(false);
    expect(r.code).toBe(130);
    expect(r.afterSignalMs).toBeLessThan(5000);
    expect(r.stderr).toBe(`interrupted: 0 of 2 replications are in ${relative(process.cwd(), join(expDir, 'results.jsonl'))}; run again with --resume to finish\n`);
    expect(jsonlRecords(join(expDir, 'results.jsonl'))).toEqual([]);
    expect(readdirSync(expDir).sort()).toEqual(['results.jsonl', 'run.json']);
  }, 60_000);

  it('a long sweep: the queued tasks do not run, and every recorded replication is complete', async () => {
    const dir = tempDir();
    // 400 replications of about 0.1 s each: a minute of work on two threads.
    const exp = {
      name: 'long-sweep',
      seed: 4,
      scenario: {
        workload: { kind: 'closed', clients: 50, thinkMs: 1, durationMs: 20_000 },
        stack: [{ name: 'client', policy: { maxAttempts: 3 } }],
        leaf: { kind: 'server', serviceMs: 1, concurrency: 20 },
      },
      sweep: { grid: { 'workload.clients': [50, 51, 52, 53] } },
      replications: 100,
    };
    const file = writeExperiment(dir, 'e.json', exp);
    const out = join(dir, 'out');
    const results = join(out, 'long-sweep', 'results.jsonl');
    const r = await interruptWhen(['run', file, '--out', out, '--workers', '2'], () => existsSync(results) && readFileSync(results, 'utf8').split('\n').length > 3);
    expect(r.timedOut).toBe(false);
    expect(r.code).toBe(130);
    expect(r.afterSignalMs).toBeLessThan(5000);
    const records = jsonlRecords(results);
    expect(records.length).toBeGreaterThanOrEqual(3);
    expect(records.length).toBeLessThan(400);
    expect(r.stderr).toContain(`interrupted: ${records.length} of 400 replications are in `);
    for (const rec of records) expect([rec.state, rec.results.truncated]).toEqual(['ok', null]);
  }, 60_000);
});

describe('InterruptHandlers', () => {
  function fakeProcess() {
    const listeners = new Map<string, Set<() => void>>();
    return {
      on: (s: string, l: () => void) => listeners.set(s, (listeners.get(s) ?? new Set()).add(l)),
      off: (s: string, l: () => void) => listeners.get(s)?.delete(l),
      send: (s: string) => [...(listeners.get(s) ?? [])].forEach((l) => l()),
      count: (s: string) => listeners.get(s)?.size ?? 0,
    };
  }

  it('the first SIGINT or SIGTERM calls the handler; a second one exits with 130 at once', () => {
    const proc = fakeProcess();
    const log: string[] = [];
    const h = new InterruptHandlers(proc, (code) => log.push(`exit ${code}`), (t) => log.push(t));
    const remove = h.install(() => log.push('stop'));
    proc.send('SIGTERM');
    expect(log).toEqual(['stop']);
    proc.send('SIGINT');
    expect(log).toEqual(['stop', 'interrupted again: stopping now\n', 'exit 130']);
    remove();
    expect([proc.count('SIGINT'), proc.count('SIGTERM')]).toEqual([0, 0]);
  });

  it('a signal after the handler was removed, while another run is installed, still counts as a second one', () => {
    const proc = fakeProcess();
    const log: string[] = [];
    const h = new InterruptHandlers(proc, (code) => log.push(`exit ${code}`), (t) => log.push(t));
    h.install(() => log.push('first run'))();
    h.install(() => log.push('second run'));
    proc.send('SIGINT');
    proc.send('SIGINT');
    expect(log).toEqual(['second run', 'interrupted again: stopping now\n', 'exit 130']);
  });
});
