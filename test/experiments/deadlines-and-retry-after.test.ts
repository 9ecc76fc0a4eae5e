import { describe, expect, it } from 'vitest';
import type { Cell, ExperimentPlan } from '../../src/experiment/index.js';
import type { SimulationResults } from '../../src/model/results.js';
import { runReplication } from '../../src/sweep/runPlan.js';
import { shippedPlan } from '../helpers/shipped.js';

const FILE = 'experiments/deadlines-and-retry-after.json';

function plan(): ExperimentPlan {
  return shippedPlan(FILE);
}

const p = plan();

function run(partName: string, variant: string, params: Record<string, unknown> = {}, replication = 0): SimulationResults {
  const part = p.parts.find((x) => x.name === partName);
  const c: Cell | undefined = part?.cells.find(
    (x) => x.variant === variant && Object.entries(params).every(([k, v]) => x.params[k] === v),
  );
  if (!c) throw new Error(`no cell ${partName}/${variant} ${JSON.stringify(params)}`);
  const rec = runReplication(c, replication, p.seed);
  if (rec.state !== 'ok') throw new Error(rec.error);
  return rec.results;
}

const success = (r: SimulationResults) => (r.giveUps.success ?? 0) / r.operations.offered;
const drop = { 'leaf.dropExpired': true };

describe('deadlines-and-retry-after (shipped experiment, quick mode)', () => {
  it('a propagated deadline ends every operation by its 1 s deadline; a fresh timeout per attempt overruns it', () => {
    for (const rep of [0, 1]) {
      const propagate = run('deadlines', 'propagate', drop, rep);
      const fresh = run('deadlines', 'fresh', drop, rep);
      expect(propagate.operationMs.max as number).toBeLessThanOrEqual(1000 + 1e-6);
      expect(propagate.giveUps.deadline).toBeGreaterThan(0);
      // The last attempt of a fresh operation gets the full 400 ms whatever remains: up to about 1.35 s.
      expect(fresh.operationMs.max as number).toBeGreaterThan(1200);
      expect(fresh.operationMs.p99 as number).toBeGreaterThan(1000);
    }
  });

  it('fresh timeouts waste more server work (work for callers that stopped waiting), send more calls and succeed less', () => {
    for (const rep of [0, 1]) {
      const propagate = run('deadlines', 'propagate', drop, rep);
      for (const v of ['fresh', 'user-and-fresh-sdk']) {
        const fresh = run('deadlines', v, drop, rep);
        expect({ v, rep, more: fresh.server.wastedWorkMs > 1.2 * propagate.server.wastedWorkMs }).toEqual({ v, rep, more: true });
        expect(fresh.leafCalls).toBeGreaterThan(propagate.leafCalls);
        expect(success(fresh)).toBeLessThan(success(propagate));
      }
    }
  });

  it('under a user who stops waiting at the deadline, operations end on time but the SDK below goes on working', () => {
    const r = run('deadlines', 'user-and-fresh-sdk', drop);
    expect(r.operationMs.max as number).toBeLessThanOrEqual(1000 + 1e-6);
    const sdk = r.attempts.find((l) => l.layer === 'sdk');
    expect(sdk?.retries).toBeGreaterThan(0);
    expect(r.server.wastedWorkMs).toBeGreaterThan(run('deadlines', 'propagate', drop).server.wastedWorkMs);
  });

  it('a server that ignores deadlines serves every stale request, whatever the client propagates', () => {
    const propagate = run('deadlines', 'propagate', { 'leaf.dropExpired': false });
    expect(propagate.server.dropped).toBe(0);
    expect(propagate.server.wastedWorkMs).toBeGreaterThan(run('deadlines', 'propagate', drop).server.wastedWorkMs);
  });

  it('Retry-After honoured with room in the deadline: fewer calls and more successes than ignoring it', () => {
    const honor = run('retry-after', 'honor');
    const ignore = run('retry-after', 'ignore');
    expect(honor.leafCalls).toBeLessThan(ignore.leafCalls);
    expect(honor.server.faulted).toBeLessThan(ignore.server.faulted / 1.5);
    expect(success(honor)).toBeGreaterThan(success(ignore) + 0.05);
    expect(ignore.giveUps['attempt-limit']).toBeGreaterThan(0);
  });

  it('a Retry-After that does not fit in the deadline is never shortened: the operation gives up at once (wait-exceeds-deadline)', () => {
    const r = run('retry-after', 'honor-short-deadline');
    // Every call answered 503 + Retry-After 3 s inside the 2 s deadline ends after one attempt.
    expect(r.giveUps['wait-exceeds-deadline']).toBe(r.server.faulted);
    expect(r.giveUps['wait-exceeds-deadline']).toBeGreaterThan(0);
    expect(r.attempts[0]?.retries).toBe(0);
    // (leaf calls also count the first calls of operations started in the warm-up that reach the server after t = 0)
    expect(r.amplification).toBeCloseTo(1, 3);
    expect(r.operationMs.max as number).toBeLessThan(500);
    // Ignoring the hint instead retries into the server that asked for a pause.
    const ignore = run('retry-after', 'ignore-short-deadline');
    expect(ignore.giveUps['wait-exceeds-deadline']).toBe(0);
    expect(ignore.leafCalls).toBeGreaterThan(r.leafCalls * 1.3);
  });
});
