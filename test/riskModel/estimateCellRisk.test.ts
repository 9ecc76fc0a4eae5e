import { describe, expect, it } from 'vitest';
import type { RiskSection } from '../../src/experiment/riskSchema.js';
import { EXAMPLE_POINTS, estimateCellRisk, ModelSystem, RiskInputError, RiskStopped, type CellRisk } from '../../src/riskModel/index.js';
import { cachedGraph, faultyServer, mm1, ruinRisk, smallStorm } from './riskScenarios.js';

/** A CellRisk without its measured CPU time (the one part that is not deterministic). */
const withoutCpu = (r: CellRisk) => ({ ...r, effort: { ...r.effort, cpuMs: 0 } });

describe('estimateCellRisk', () => {
  it('is deterministic, plain JSON, and counts its effort', () => {
    const risk = ruinRisk(6, { particles: 10, repetitions: 4 });
    const a = estimateCellRisk(mm1(100, 200), risk, 5);
    const b = estimateCellRisk(mm1(100, 200), risk, 5);
    expect(withoutCpu(a)).toEqual(withoutCpu(b));
    // What a worker thread sends back: a structured clone holds all of it.
    expect(structuredClone(a)).toEqual(a);
    expect(a.repetitions).toHaveLength(4);
    expect(a.effort.events).toBeGreaterThan(a.effort.runs);
    expect(a.effort.snapshots).toBeGreaterThan(0);
    expect(a.effort.cpuMs).toBeGreaterThan(0);
    const c = estimateCellRisk(mm1(100, 200), risk, 6);
    expect(c.repetitions).not.toEqual(a.repetitions);
  });

  it('stops between trajectories when asked', () => {
    let polls = 0;
    const shouldStop = () => ++polls > 25;
    expect(() => estimateCellRisk(mm1(100, 200), ruinRisk(8, { particles: 10, repetitions: 4 }), 1, { shouldStop })).toThrow(RiskStopped);
    expect(polls).toBe(26);
  });

  it('the example trajectory keeps at most EXAMPLE_POINTS points, in time order, to its collapse', () => {
    // A storm read every 5 ms whose collapse (queued > -1: always) must hold for 3 s: 601 checks from 0 to 3,000 ms.
    const r = estimateCellRisk(
      smallStorm(faultyServer()),
      { importance: { metric: 'inFlight' }, collapse: { metric: 'queued', above: -1, forMs: 3000 }, checkEveryMs: 5, method: 'monte-carlo', runs: 1 },
      1,
    );
    expect(r.probability).toBe(1);
    const x = r.example;
    expect(x).not.toBeNull();
    const t = x?.tMs ?? [];
    expect(t.length).toBeLessThanOrEqual(EXAMPLE_POINTS);
    expect(t.length).toBeGreaterThan(EXAMPLE_POINTS / 4);
    expect(t[0]).toBe(0);
    expect(t.every((v, i) => i === 0 || v > (t[i - 1] as number))).toBe(true);
    expect(x?.collapseAtMs).toBe(0);
    expect(x?.importance).toHaveLength(t.length);
    expect(x?.collapseMetric).toHaveLength(t.length);
  });
});

describe('a run that cannot be copied', () => {
  it('splitting is refused up front when copyProblems names anything, naming it; plain Monte Carlo runs all the same', () => {
    const risk: RiskSection = { importance: { metric: 'inFlight', service: 'db' }, collapse: { metric: 'missRatio', above: 0.9, forMs: 100 }, checkEveryMs: 100, particles: 2, repetitions: 2 };
    const problems = new ModelSystem(cachedGraph(), risk).copyProblems();
    const splitting = () => estimateCellRisk(cachedGraph(), risk, 1);
    if (problems.length > 0) {
      expect(splitting).toThrow(RiskInputError);
      expect(splitting).toThrow(`risk.method: adaptive splitting needs snapshots of the run, and this scenario's run cannot be copied yet (${problems[0]}`);
    } else expect(splitting().method).toBe('adaptive');
    const { particles: _particles, repetitions: _repetitions, ...section } = risk;
    expect(estimateCellRisk(cachedGraph(), { ...section, method: 'monte-carlo', runs: 2 }, 1).effort.runs).toBe(2);
  });

  it('copyProblems finds nothing in the M/M/1 run', () => {
    expect(new ModelSystem(mm1(100, 200), ruinRisk(5)).copyProblems()).toEqual([]);
  });
});
