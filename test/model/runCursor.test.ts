import { describe, expect, it } from 'vitest';
import { Model } from '../../src/model/Model.js';
import type { Scenario } from '../../src/model/scenario.js';
import { shippedPlan } from '../helpers/shipped.js';

/** The first cell's scenario of each part of a shipped experiment in quick mode. */
function partScenarios(file: string): Array<{ name: string; scenario: Scenario }> {
  return shippedPlan(file).parts.map((p) => ({ name: `${file} ${p.name}`, scenario: (p.cells[0] as { scenario: Scenario }).scenario }));
}

/** A run advanced in pieces: to `times` in turn (pausing every `pauseEvery` events on the way), then to the end. */
function inPieces(sc: Scenario, seed: number, times: number[], pauseEvery: number): { results: string; pieces: number } {
  const m = new Model(sc, { seed });
  m.begin();
  let pieces = 0;
  for (const t of times) {
    while (!m.runUntil(t, pauseEvery) && m.nowMs() < t) pieces++;
    if (m.runUntil(t)) break;
  }
  m.runUntil(Infinity);
  return { results: JSON.stringify(m.end()), pieces };
}

const SCENARIOS = [
  ...partScenarios('experiments/cache-metastability.json'),
  ...partScenarios('experiments/fleet-cascade.json'),
  ...partScenarios('experiments/metastable-collapse.json'),
].filter((s, i) => i < 6);

/** The first quick cell of cache-metastability with a timed intervention (a graph run). */
const WITH_INTERVENTION = shippedPlan('experiments/cache-metastability.json')
  .parts.flatMap((p) => p.cells)
  .find((c) => c.scenario.interventions !== undefined)?.scenario;

describe('a run advanced in pieces', () => {
  it.each(SCENARIOS)('gives the results of the run in one go: $name', ({ scenario }) => {
    const whole = JSON.stringify(new Model(scenario, { seed: 7 }).run());
    const h = scenario.horizonMs;
    const times = [-scenario.warmupMs / 2, 0, h / 7, h / 3, h / 3, (h * 2) / 3 + 0.5, h];
    const split = inPieces(scenario, 7, times, 997);
    expect(split.pieces).toBeGreaterThan(3);
    expect(split.results).toBe(whole);
  });

  it('gives the results of the run in one go with a timed intervention', () => {
    const sc = WITH_INTERVENTION as Scenario;
    const h = sc.horizonMs;
    expect(inPieces(sc, 5, [0, h / 5, h / 2, h], 4999).results).toBe(JSON.stringify(new Model(sc, { seed: 5 }).run()));
  });

  it('applies an intervention between pieces exactly when a run in one go does', () => {
    expect(WITH_INTERVENTION).toBeDefined();
    const sc = WITH_INTERVENTION as Scenario;
    const at = (sc.interventions ?? [])[0]?.atMs as number;
    const whole = JSON.stringify(new Model(sc, { seed: 3 }).run());
    // Pieces that end just before, at and just after the intervention's moment.
    expect(inPieces(sc, 3, [at - 1e-9, at, at, at + 1e-9], 1_000_000).results).toBe(whole);
  });

  it('says when the run is over, and stays over', () => {
    const sc = SCENARIOS[0]?.scenario as Scenario;
    const m = new Model(sc, { seed: 1 });
    m.begin();
    expect(m.runUntil(0)).toBe(false);
    expect(m.runUntil(Infinity)).toBe(true);
    expect(m.runUntil(Infinity)).toBe(true);
    expect(() => m.begin()).toThrow(/begins once/);
  });
});
