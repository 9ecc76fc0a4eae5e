import { describe, expect, it } from 'vitest';
import { expandExperiment, parseExperiment, replicationSeed, type ExperimentPlan } from '../../src/experiment/index.js';
import { Model } from '../../src/model/Model.js';
import { estimateOutput, runSpans, seriesShape } from '../../src/sweep/estimateOutput.js';

function plan(root: Record<string, unknown>): ExperimentPlan {
  const parsed = parseExperiment(root);
  if (!parsed.ok) throw new Error(parsed.errors.join('\n'));
  const expanded = expandExperiment(parsed.experiment, { quick: false, set: [] });
  if (!expanded.ok) throw new Error(expanded.errors.join('\n'));
  return expanded.plan;
}

/** A burst of `clients` against a leaf that answers 200 at once, across hops of exactly 5 ms: every operation ends at 10 ms. */
function burst(clients: number) {
  return {
    name: 'burst',
    seed: 3,
    scenario: {
      workload: { kind: 'burst', clients },
      stack: [{ name: 'client', policy: { maxAttempts: 3 } }],
      leaf: { kind: 'script', script: ['200:0'] },
      network: { hopMs: 5 },
      metrics: { timeSeriesBinMs: 1 },
    },
    replications: 2,
  };
}

describe('the output estimate counts the series over the time a run lasts', () => {
  it('a burst is run ahead: its series cover the 10 ms its operations take, not its first minute', () => {
    const p = plan(burst(10));
    const cell = p.parts[0]!.cells[0]!;
    const spans = runSpans(p);
    expect(spans.get(cell)).toEqual({ spanMs: 10, spanField: "replication 0's span (run ahead)" });
    const s = seriesShape(cell.scenario, spans.get(cell));
    expect(s.bins).toBe(11);
    // Per bin of a run: the bin starts "0," to "10," (23 characters over 11 bins); five counts (arrivals
    // first and retried, successes, failures, goodput: 1000 / 1 ms is an integer) of 2 + log10(1 + 10
    // operations x 1 ms / 10 ms) bytes; a scripted leaf's queue and busy workers, always 0, 2 bytes
    // each; operations in flight, 19 bytes.
    const count = 2 + Math.log10(2);
    const runBin = 23 / 11 + 5 * count + 2 + 19 + 2;
    expect(s.runBinBytes).toBeCloseTo(runBin, 12);
    // summary.json: replication 0's 9 series (bin starts included) and the 8 mean series, indented
    // by 11 bytes a value; a mean over 2 replications is 8 bytes a count (goodput too), the gauges as in a run.
    const typical = 11 * (runBin + 9 * 11);
    const mean = 11 * (4 * 8 + 8 + 2 + 19 + 2 + 8 * 11);
    const e = estimateOutput(p, spans);
    expect(e.seriesBytes).toBe(Math.round(2 * 11 * runBin + typical + mean));
    expect(e.largest).toEqual({ bins: 11, series: 9, binMs: 1, spanMs: 10, spanField: "replication 0's span (run ahead)" });
    // The default spans are the same run ahead.
    expect(estimateOutput(p)).toEqual(e);
  });

  it('a burst of more clients than are run ahead keeps its first minute', () => {
    const p = plan(burst(200_000));
    const cell = p.parts[0]!.cells[0]!;
    expect(runSpans(p).get(cell)).toEqual({ spanMs: 60_000, spanField: "a burst's first minute" });
    expect(estimateOutput(p).largest?.bins).toBe(60_001);
  });

  it('a cell too long to run ahead takes its nominal span times the largest ratio run ahead in its part', () => {
    // Variant short (95 ms of demand, operations of 10 ms back to back) runs ahead; variant long
    // (10^6 ms of demand, 10^5 operations of several events each) needs more events than a cell may spend.
    const p = plan({
      name: 'closed',
      seed: 5,
      scenario: {
        workload: { kind: 'closed', clients: 1, thinkMs: 0, durationMs: 95 },
        stack: [{ name: 'client', policy: { maxAttempts: 1 } }],
        leaf: { kind: 'script', script: ['200:0'] },
        network: { hopMs: 5 },
        metrics: { timeSeriesBinMs: 10 },
      },
      variants: { short: {}, long: { 'workload.durationMs': 1_000_000 } },
      replications: 1,
    });
    const [short, long] = p.parts[0]!.cells as [ExperimentPlan['parts'][number]['cells'][number], ExperimentPlan['parts'][number]['cells'][number]];
    const spans = runSpans(p);
    // The short cell's span is that of its replication 0: the last operation starts at 90 ms, before the demand stops, and ends 10 ms later.
    const ran = new Model(short.scenario, { seed: replicationSeed(5, short.part, short.params, 0) }).run();
    expect(ran.simulatedMs).toBe(100);
    expect(spans.get(short)).toEqual({ spanMs: 100, spanField: "replication 0's span (run ahead)" });
    expect(spans.get(long)).toEqual({ spanMs: (1_000_000 * 100) / 95, spanField: 'workload.durationMs x 1.05 (the largest ratio of a span run ahead to its nominal one in its part)' });
  });
});
