import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { expandExperiment, parseExperimentText, ValidationError, type ExperimentPlan } from '../../src/experiment/index.js';
import { Model } from '../../src/model/Model.js';
import type { Scenario } from '../../src/model/scenario.js';
import { ScenarioError } from '../../src/model/ScenarioError.js';

/**
 * Fuzzing the loader: random JSON values and random mutations of the shipped experiment files
 * give a result or validation errors, never an exception; a sample of what passes runs, at tiny
 * sizes, to results or a scenario error.
 */

const SOURCE = 'fuzz.json';
const SHIPPED = readdirSync('experiments', { recursive: true, encoding: 'utf8' })
  .filter((f) => f.endsWith('.json') && !f.endsWith('schema.json'))
  .sort()
  .map((f) => ({ file: f, value: JSON.parse(readFileSync(join('experiments', f), 'utf8')) as unknown }));

/** Parse and expand (normal and quick mode); every outcome is a plan or a list of messages. */
function load(text: string): ExperimentPlan[] {
  const parsed = parseExperimentText(text, SOURCE);
  if (!parsed.ok) {
    expect(parsed.errors.length).toBeGreaterThan(0);
    for (const e of parsed.errors) expect(e).toMatch(/^fuzz\.json: ./);
    return [];
  }
  const plans: ExperimentPlan[] = [];
  for (const quick of [false, true]) {
    const expanded = expandExperiment(parsed.experiment, { quick });
    if (expanded.ok) plans.push(expanded.plan);
    else {
      expect(expanded.errors.length).toBeGreaterThan(0);
      for (const e of expanded.errors) expect(typeof e).toBe('string');
    }
  }
  return plans;
}

/** The first cell of a plan at tiny sizes: few clients and instances, a short horizon, few events, coarse bins. */
function tiny(s: Scenario): Scenario {
  const horizonMs = Math.min(s.horizonMs, 10_000);
  const binFloor = (horizonMs + s.warmupMs) / 200;
  return {
    ...s,
    workload: { ...s.workload, clients: Math.min(s.workload.clients, 20) } as Scenario['workload'],
    stack: s.stack.map((l) => ({ ...l, instances: Math.min(l.instances, 4) })),
    warmupMs: Math.min(s.warmupMs, 1000),
    horizonMs,
    maxEvents: Math.min(s.maxEvents, 5000),
    metrics: {
      timeSeriesBinMs: Math.max(s.metrics.timeSeriesBinMs, binFloor),
      clusteringBinMs: s.metrics.clusteringBinMs.map((b) => Math.max(b, binFloor / 10)),
    },
  };
}

/** Run the first cell at tiny sizes: results, or a scenario/validation error naming the problem. */
function runFirstCell(plan: ExperimentPlan): void {
  const cell = plan.parts[0]?.cells[0];
  if (!cell) return;
  try {
    const r = new Model(tiny(cell.scenario), { seed: 1 }).run();
    expect(r.events).toBeLessThanOrEqual(5000);
    expect(r.operations.offered).toBeGreaterThanOrEqual(r.operations.succeeded + r.operations.failed);
  } catch (e) {
    if (e instanceof ScenarioError || e instanceof ValidationError) {
      expect(e.problems.length).toBeGreaterThan(0);
      return;
    }
    throw e;
  }
}

// ---------------------------------------------------------------- mutations

type Path = Array<string | number>;
const INF = '\u0000inf\u0000';
const NEG_INF = '\u0000-inf\u0000';

function paths(v: unknown, at: Path = []): Path[] {
  const out: Path[] = [at];
  if (Array.isArray(v)) v.forEach((x, i) => out.push(...paths(x, [...at, i])));
  else if (v !== null && typeof v === 'object') for (const [k, x] of Object.entries(v)) out.push(...paths(x, [...at, k]));
  return out;
}

function parentOf(root: unknown, path: Path): { parent: any; key: string | number } | null {
  if (path.length === 0) return null;
  let cur: any = root;
  for (const k of path.slice(0, -1)) cur = cur[k];
  return { parent: cur, key: path[path.length - 1] as string | number };
}

type Mutation =
  | { op: 'delete' }
  | { op: 'replace'; value: unknown }
  | { op: 'negate' }
  | { op: 'duplicate' }
  | { op: 'rename'; how: number };

const mutationArb: fc.Arbitrary<Mutation> = fc.oneof(
  fc.constant<Mutation>({ op: 'delete' }),
  fc.constantFrom<unknown>('x', 'NaN', 0, -1, 0.5, 1e308, INF, NEG_INF, true, null, [], {}, [1, 2], { kind: '?' }, 'unlimited', '503:10*3').map((value): Mutation => ({ op: 'replace', value })),
  fc.constant<Mutation>({ op: 'negate' }),
  fc.constant<Mutation>({ op: 'duplicate' }),
  fc.integer({ min: 0, max: 3 }).map((how): Mutation => ({ op: 'rename', how })),
);

function typo(key: string, how: number): string {
  switch (how) {
    case 0:
      return key.slice(0, -1) || 'x';
    case 1:
      return key.charAt(0).toUpperCase() + key.slice(1);
    case 2:
      return `${key}s`;
    default:
      return key.length > 1 ? key.charAt(1) + key.charAt(0) + key.slice(2) : `${key}${key}`;
  }
}

/** Apply a mutation at the path picked by `pick` (a fraction of the value's paths). */
function mutate(root: unknown, pick: number, m: Mutation): unknown {
  const all = paths(root);
  const path = all[Math.floor(pick * all.length)] as Path;
  const loc = parentOf(root, path);
  if (!loc) return m.op === 'replace' ? m.value : root;
  const { parent, key } = loc;
  const current = parent[key];
  switch (m.op) {
    case 'delete':
      if (Array.isArray(parent)) parent.splice(key as number, 1);
      else delete parent[key];
      break;
    case 'replace':
      parent[key] = structuredClone(m.value);
      break;
    case 'negate':
      parent[key] = typeof current === 'number' ? -current - 1 : -1;
      break;
    case 'duplicate':
      if (Array.isArray(current) && current.length > 0) current.push(structuredClone(current[0]));
      else if (Array.isArray(parent)) parent.push(structuredClone(current));
      else parent[key] = [current, current];
      break;
    case 'rename':
      if (!Array.isArray(parent)) {
        const renamed = typo(String(key), m.how);
        delete parent[key];
        parent[renamed] = current;
      }
      break;
  }
  return root;
}

/** JSON text of a value, with the markers of +-Infinity written as 1e999 and -1e999 (valid JSON). */
function toText(v: unknown): string {
  return JSON.stringify(v, null, 1)
    .split(JSON.stringify(INF))
    .join('1e999')
    .split(JSON.stringify(NEG_INF))
    .join('-1e999');
}

const shippedMutantArb = fc
  .record({
    file: fc.integer({ min: 0, max: SHIPPED.length - 1 }),
    mutations: fc.array(fc.tuple(fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), mutationArb), { minLength: 1, maxLength: 3 }),
  })
  .map(({ file, mutations }) => {
    let v = structuredClone((SHIPPED[file] as { value: unknown }).value);
    for (const [pick, m] of mutations) v = mutate(v, pick, m);
    return { file: (SHIPPED[file] as { file: string }).file, text: toText(v) };
  });

describe('fuzzing the experiment loader', () => {
  it('the shipped experiment files load as they are', () => {
    expect(SHIPPED.length).toBeGreaterThanOrEqual(10);
    for (const { value } of SHIPPED) expect(load(JSON.stringify(value)).length).toBe(2);
  });

  it('any text: a result or validation errors, never an exception', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.string({ unit: 'binary' }), fc.json()), (text) => {
        load(text);
      }),
      { numRuns: 300 },
    );
  });

  it('any JSON value as the file, or as its scenario, parts or sweep', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.constantFrom('root', 'scenario', 'workload', 'stack', 'leaf', 'parts', 'sweep', 'variants'), (value, where) => {
        const base: Record<string, any> = {
          name: 'fuzz',
          scenario: { workload: { kind: 'burst', clients: 2 }, stack: [{ name: 'a' }], leaf: { kind: 'server', serviceMs: 1 } },
        };
        let doc: unknown = base;
        if (where === 'root') doc = value;
        else if (where === 'scenario') base.scenario = value;
        else if (where === 'workload' || where === 'stack' || where === 'leaf') base.scenario[where] = value;
        else if (where === 'parts') doc = { name: 'fuzz', parts: value };
        else base[where] = value;
        for (const plan of load(JSON.stringify(doc))) runFirstCell(plan);
      }),
      { numRuns: 400 },
    );
  });

  it('random mutations of the shipped files: a result or validation errors; what loads runs at tiny sizes', () => {
    fc.assert(
      fc.property(shippedMutantArb, fc.boolean(), ({ text }, runIt) => {
        const plans = load(text);
        if (runIt && plans[0]) runFirstCell(plans[0]);
      }),
      { numRuns: 300 },
    );
  });
});
