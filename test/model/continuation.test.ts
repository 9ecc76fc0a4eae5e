import fc from 'fast-check';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { copyState, stateProblems } from '../../src/engine/copyState.js';
import { watchRunMemory } from '../../src/engine/memoryMeter.js';
import { NamedSeed, type StreamRule } from '../../src/engine/random.js';
import { resolveScenario } from '../../src/experiment/index.js';
import { Model } from '../../src/model/Model.js';
import type { Scenario } from '../../src/model/scenario.js';
import { continuousArb, graphJsonArb, poolArb, scenarioArb } from '../helpers/arbitraries.js';
import { shippedPlan } from '../helpers/shipped.js';

const ORIGINAL: StreamRule = { kind: 'original' };
const fresh = (seed: number): StreamRule => ({ kind: 'fresh', seed });

/** A snapshot of a run: the copy of its state, which is itself never run (each continuation runs a copy of it). */
type Snapshot = { model: Model };

/** A run of `sc` begun and paused after `events` events (or at `atMs`), and the snapshot of it. */
function snapshotOf(sc: Scenario, seed: number, pause: { events?: number; atMs?: number }): { model: Model; snapshot: Snapshot } {
  const model = new Model(sc, { seed });
  model.begin();
  model.runUntil(pause.atMs ?? Infinity, pause.events ?? Infinity);
  return { model, snapshot: copyState({ model }, { streams: ORIGINAL }) };
}

/**
 * The results (as JSON) of a continuation of `snapshot` with `streams`, run `events` more events
 * (all that remain by default); copied into `into` (a model built for the same scenario) when given.
 */
function continued(snapshot: Snapshot, streams: StreamRule, events = Infinity, into?: Model): string {
  const copy = copyState(snapshot, { streams, ...(into !== undefined ? { into: { model: into } } : {}) }).model;
  copy.runUntil(Infinity, events);
  return JSON.stringify(copy.end());
}

/** The results (as JSON) of a run of `sc` without any snapshot, ended after `events` events (all by default). */
function uncopied(sc: Scenario, seed: number, events = Infinity): string {
  const m = new Model(sc, { seed });
  m.begin();
  m.runUntil(Infinity, events);
  return JSON.stringify(m.end());
}

/** Every event count of a run of `sc`, and a pause in the middle of it (at `share` of its events). */
function midRun(sc: Scenario, seed: number, share: number): { whole: string; pause: number } {
  const whole = JSON.stringify(new Model(sc, { seed }).run());
  const events = (JSON.parse(whole) as { events: number }).events;
  return { whole, pause: Math.floor(share * events) };
}

/** The property: continued from a snapshot with the original streams, the run gives the uninterrupted run's results, each time. */
function continuesExactly(sc: Scenario, seed: number, share: number): void {
  const { whole, pause } = midRun(sc, seed, share);
  const { model, snapshot } = snapshotOf(sc, seed, { events: pause });
  expect(continued(snapshot, ORIGINAL)).toBe(whole);
  expect(continued(snapshot, ORIGINAL)).toBe(whole);
  // Copied into the objects of a model just built (their hidden classes kept): the same run.
  expect(continued(snapshot, ORIGINAL, Infinity, new Model(sc, { seed: seed + 1 }))).toBe(whole);
  // The run copied goes on as it would have: copying changed nothing in it.
  model.runUntil(Infinity);
  expect(JSON.stringify(model.end())).toBe(whole);
}

function resolved(raw: unknown): Scenario {
  const r = resolveScenario(raw);
  if (!r.ok) throw new Error(r.errors.join('\n'));
  return r.scenario;
}

const share = fc.double({ min: 0, max: 1, noNaN: true });

describe('a run continued from a snapshot with its original streams equals the run without one (random scenarios)', () => {
  it('stack scenarios: layers, scripted and server leaves, bursts', () => {
    fc.assert(
      fc.property(scenarioArb, fc.nat(), share, (sc, seed, at) => continuesExactly(sc, seed, at)),
      { numRuns: 50, seed: 4401 },
    );
  });

  it('stack scenarios with continuous delays, closed loops, warm-ups, horizons and the OCC leaf', () => {
    fc.assert(
      fc.property(continuousArb, fc.nat(), share, (sc, seed, at) => continuesExactly(sc, seed, at)),
      { numRuns: 50, seed: 4402 },
    );
  });

  it('pools of backends: load balancers, outages, outlier detection, health checks', () => {
    fc.assert(
      fc.property(poolArb, fc.nat(), share, (sc, seed, at) => continuesExactly(sc, seed, at)),
      { numRuns: 12, seed: 4403 },
    );
  });

  it('service graphs: caches, weighted entries, joins, in-flight caps, metric windows, timed interventions', () => {
    fc.assert(
      fc.property(graphJsonArb, fc.nat(), share, (raw, seed, at) => continuesExactly(resolved(raw), seed, at)),
      { numRuns: 20, seed: 4404 },
    );
  });
});

/** The shipped experiments (quick mode). */
const SHIPPED = readdirSync('experiments')
  .filter((n) => n.endsWith('.json') && n !== 'schema.json')
  .sort()
  .map((n) => join('experiments', n));

/** The kinds a scenario uses (every `kind`, distribution, seeding mode, discipline, load balancer), whether it has interventions and metric windows. */
function shape(sc: Scenario): string {
  const found = new Set<string>();
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) for (const x of v) walk(x);
    else if (typeof v === 'object' && v !== null) {
      for (const [k, x] of Object.entries(v)) {
        if (['kind', 'dist', 'discipline', 'loadBalancer'].includes(k) && typeof x === 'string') found.add(`${k}:${x}`);
        walk(x);
      }
    }
  };
  walk(sc);
  if (sc.interventions !== undefined) found.add('interventions');
  if (sc.metrics.windows !== undefined) found.add('windows');
  return [...found].sort().join(',');
}

/** Of a shipped experiment in quick mode: the first cell of each part and the first of every other shape. */
function cellsOf(file: string): Array<{ name: string; scenario: Scenario; first: boolean }> {
  const seen = new Set<string>();
  const out: Array<{ name: string; scenario: Scenario; first: boolean }> = [];
  for (const part of shippedPlan(file).parts) {
    part.cells.forEach((cell, i) => {
      const s = shape(cell.scenario);
      if (i === 0 || !seen.has(s)) out.push({ name: `${part.name} #${i}`, scenario: cell.scenario, first: i === 0 });
      seen.add(s);
    });
  }
  return out;
}

/** Events a shipped model runs before its snapshot, and after it (kept small: the tests stay fast). */
const EVENTS_BEFORE = 6000;
const EVENTS_AFTER = 6000;
/** Events a continuation with fresh streams runs after the snapshot. */
const EVENTS_FRESH = 32_000;

describe('every shipped model keeps its state in plain fields', () => {
  it.each(SHIPPED)('%s: nothing in its state mid-run is out of reach of a copy, fresh streams included', (file) => {
    for (const { name, scenario } of cellsOf(file)) {
      const m = new Model(scenario, { seed: 3 });
      m.begin();
      m.runUntil(Math.min(scenario.horizonMs / 3, 2000), EVENTS_BEFORE);
      expect({ name, problems: stateProblems({ model: m }, { streams: fresh(1) }) }).toEqual({ name, problems: [] });
      expect(() => copyState({ model: m }, { streams: fresh(1) })).not.toThrow();
    }
  });
});

describe('a shipped model continued from a snapshot', () => {
  it.each(SHIPPED)('%s: with the original streams, as the run without a snapshot, each time; with fresh ones, another run, the same per seed', (file) => {
    for (const { name, scenario, first } of cellsOf(file)) {
      if (!first) continue;
      // Paused in the middle of what runs, should the run end within the events counted.
      const ran = (JSON.parse(uncopied(scenario, 5, EVENTS_BEFORE + EVENTS_AFTER)) as { events: number }).events;
      const before = Math.min(EVENTS_BEFORE, Math.floor(ran / 2));
      const whole = uncopied(scenario, 5, before + EVENTS_AFTER);
      const { snapshot } = snapshotOf(scenario, 5, { events: before });
      expect({ name, same: continued(snapshot, ORIGINAL, EVENTS_AFTER) === whole }).toEqual({ name, same: true });
      expect(continued(snapshot, ORIGINAL, EVENTS_AFTER)).toBe(whole);
      expect(continued(snapshot, ORIGINAL, EVENTS_AFTER, new Model(scenario, { seed: 6 }))).toBe(whole);
      // Fresh streams: the same branch per seed, and another run than the original (over enough
      // events for the draws made after the snapshot to show: a burst of 10,000 clients first sends them all).
      const longer = before + EVENTS_FRESH;
      expect(continued(snapshot, fresh(17), EVENTS_AFTER)).toBe(continued(snapshot, fresh(17), EVENTS_AFTER));
      const branch = continued(snapshot, fresh(17), EVENTS_FRESH);
      expect({ name, differs: branch !== uncopied(scenario, 5, longer) }).toEqual({ name, differs: true });
      expect(continued(snapshot, fresh(18), EVENTS_FRESH)).not.toBe(branch);
    }
  });
});

/** cache-metastability's first quick cell with a timed intervention, its intervention and windows moved early: a graph run in a few seconds of simulated time. */
function earlyIntervention(): Scenario {
  const sc = shippedPlan('experiments/cache-metastability.json')
    .parts.flatMap((p) => p.cells)
    .find((c) => c.scenario.interventions !== undefined)?.scenario as Scenario;
  const windows = (sc.metrics.windows ?? []).map((w) => ({ ...w, fromMs: 1000, toMs: 4000 }));
  return { ...sc, interventions: (sc.interventions ?? []).map((iv) => ({ ...iv, atMs: 2000 })), metrics: { ...sc.metrics, windows } };
}

describe('a snapshot with a timed intervention to come and metric windows in progress', () => {
  it('copies every part of the state and continues past the intervention exactly', () => {
    const sc = earlyIntervention();
    const end = 2500;
    const reference = new Model(sc, { seed: 2 });
    reference.begin();
    reference.runUntil(end);
    const whole = JSON.stringify(reference.end());
    expect(JSON.parse(whole).interventions).toHaveLength(1);
    const { model, snapshot } = snapshotOf(sc, 2, { atMs: 1500 });
    expect(stateProblems({ model }, { streams: fresh(1) })).toEqual([]);
    for (let i = 0; i < 2; i++) {
      const copy = copyState(snapshot, { streams: ORIGINAL }).model;
      copy.runUntil(end);
      expect(JSON.stringify(copy.end())).toBe(whole);
    }
  });

  it('metastable-collapse: a stack run inside its metric window, continued exactly', () => {
    const sc = shippedPlan('experiments/metastable-collapse.json').parts.find((p) => p.name === 'knife-edge')?.cells[0]?.scenario as Scenario;
    const [w] = sc.metrics.windows ?? [];
    expect(w).toBeDefined();
    const at = ((w?.fromMs as number) + (w?.toMs as number)) / 2;
    const end = at + 5000;
    const reference = new Model(sc, { seed: 4 });
    reference.begin();
    reference.runUntil(end);
    const whole = JSON.stringify(reference.end());
    const { snapshot } = snapshotOf(sc, 4, { atMs: at });
    const copy = copyState(snapshot, { streams: ORIGINAL }).model;
    copy.runUntil(end);
    expect(JSON.stringify(copy.end())).toBe(whole);
  });
});

describe('fresh streams reach the seeds a model keeps as numbers', () => {
  /** A graph whose entries are a weighted mix and whose call has a cache: both draw per operation from a seed, not a stream. */
  const raw = {
    workload: { kind: 'open', rate: 200, durationMs: 200, entry: [{ service: 'app', endpoint: 'get', weight: 1 }, { service: 'edge', endpoint: 'get', weight: 1 }] },
    stack: [{ name: 'client', policy: { maxAttempts: 1 } }],
    services: {
      app: { fleet: { kind: 'server', concurrency: 4, serviceMs: 1 }, endpoints: { get: { steps: [{ kind: 'call', calls: [{ service: 'db', cache: { capacity: 5, keys: 1000, zipf: 0.5 } }] }] } } },
      edge: { fleet: { kind: 'server', concurrency: 4, serviceMs: 1 }, endpoints: { get: {} } },
      db: { fleet: { kind: 'server', concurrency: 4, serviceMs: 1 }, endpoints: { get: {} } },
    },
  };
  type Internals = { graphRun: { caches: { list: Array<{ opKey(op: number): number }> } } };
  const keys = (m: Model) => Array.from({ length: 200 }, (_, op) => (m as unknown as Internals).graphRun.caches.list[0]?.opKey(op));

  it("an operation's cache key: the original's with the original streams, another with fresh ones, the same per seed", () => {
    const { model, snapshot } = snapshotOf(resolved(raw), 1, { atMs: 50 });
    const original = keys(model);
    expect(keys(copyState(snapshot, { streams: ORIGINAL }).model)).toEqual(original);
    const branch = keys(copyState(snapshot, { streams: fresh(9) }).model);
    expect(branch).toEqual(keys(copyState(snapshot, { streams: fresh(9) }).model));
    expect(branch.filter((k, op) => k !== original[op]).length).toBeGreaterThan(150);
  });

  it('every seed kept as a number (the cache keys, the entries) is re-derived by fresh streams, the same per seed', () => {
    const { model, snapshot } = snapshotOf(resolved(raw), 1, { atMs: 50 });
    const original = namedSeeds(model);
    expect(original.length).toBeGreaterThanOrEqual(2);
    const branch = namedSeeds(copyState(snapshot, { streams: fresh(9) }).model);
    expect(branch).toEqual(namedSeeds(copyState(snapshot, { streams: fresh(9) }).model));
    expect(namedSeeds(copyState(snapshot, { streams: ORIGINAL }).model)).toEqual(original);
    branch.forEach((v, i) => expect(v).not.toBe(original[i]));
  });
});

/** The values of every NamedSeed a model reaches, in the order a walk of its fields meets them. */
function namedSeeds(root: unknown): number[] {
  const out: number[] = [];
  const seen = new Set<unknown>();
  const walk = (v: unknown): void => {
    if (typeof v !== 'object' || v === null || seen.has(v) || ArrayBuffer.isView(v)) return;
    seen.add(v);
    if (v instanceof NamedSeed) out.push(v.value);
    if (v instanceof Map) for (const x of v.values()) walk(x);
    for (const x of Object.values(v)) walk(x);
  };
  walk(root);
  return out;
}

describe('the memory meter with copies of a run alive', () => {
  /** An open loop into a server far slower than the demand, with an unlimited queue: its tables grow for as long as operations arrive. */
  const growing = resolved({
    workload: { kind: 'open', rate: 5000, durationMs: 4000 },
    stack: [{ name: 'client', policy: { maxAttempts: 1 } }],
    leaf: { kind: 'server', concurrency: 1, serviceMs: 10 },
  });

  it('counts each copy as a run of its own: a copy growing past the ceiling is stopped and says so, the original it was copied from is not', () => {
    const original = new Model(growing, { seed: 1 });
    original.begin();
    original.runUntil(500);
    const held = original.memoryHeldBytes();
    const copy = copyState({ model: original }, { streams: ORIGINAL }).model;
    expect(copy.memoryHeldBytes()).toBe(held);
    try {
      // A ceiling above what both hold now: the copy goes on alone and passes it.
      watchRunMemory(held * 2);
      copy.runUntil(Infinity);
      original.runUntil(600);
      // A run built meanwhile does not take the count of either.
      new Model(growing, { seed: 2 }).begin();
      const copied = copy.end();
      const kept = original.end();
      expect(copied.truncated).toBe('memory-cap');
      expect(copied.truncatedReason).toMatch(/^stopped at the memory ceiling/);
      expect(kept.truncated).toBe('horizon');
      expect(original.memoryHeldBytes()).toBeLessThan(held * 2);
    } finally {
      watchRunMemory(Infinity);
    }
  });
});
