import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { expandExperiment, parseExperiment } from '../../src/experiment/index.js';
import { simulate } from '../../src/index.js';
import { Model } from '../../src/model/Model.js';
import type { Scenario } from '../../src/model/scenario.js';
import { ScenarioError } from '../../src/model/ScenarioError.js';

type Json = Record<string, any>;

const DIR = 'experiments';
/** Whether an experiment file is written as a stack + leaf (not as a service graph): every part's scenario has a leaf. */
const stackForm = (file: string): boolean => {
  const root = JSON.parse(readFileSync(file, 'utf8')) as Json;
  return ((root.parts as Json[] | undefined) ?? [root]).every((p) => p.scenario?.leaf !== undefined);
};
/** The shipped stack experiments (the graph experiments are graphs already). */
const SHIPPED = [
  ...readdirSync(DIR).filter((n) => n.endsWith('.json') && n !== 'schema.json').map((n) => join(DIR, n)),
  ...readdirSync(join(DIR, 'validation')).filter((n) => n.endsWith('.json')).map((n) => join(DIR, 'validation', n)),
]
  .filter(stackForm)
  .sort();

/** `leaf...` written as the path of the one service's fleet. */
function graphPath(key: string): string {
  return key === 'leaf' ? 'services.backend.fleet' : key.startsWith('leaf.') ? `services.backend.fleet.${key.slice(5)}` : key;
}

function rewriteKeys(overrides: Json | undefined): Json | undefined {
  if (overrides === undefined) return undefined;
  return Object.fromEntries(Object.entries(overrides).map(([k, v]) => [graphPath(k), v]));
}

/** A scenario (or a partial one, as `quick` gives) with its leaf moved into the fleet of one service. */
function graphScenario(scenario: Json | undefined): void {
  if (scenario === undefined) return;
  if (scenario.leaf !== undefined) {
    scenario.services = { backend: { fleet: scenario.leaf, endpoints: { call: {} } } };
    delete scenario.leaf;
  }
  if (scenario.workload !== undefined && scenario.services !== undefined) scenario.workload.entry = { service: 'backend', endpoint: 'call' };
}

/** An experiment file rewritten so that every part's scenario is a graph of one service, overrides included. */
function asOneServiceGraph(root: Json): Json {
  const out = structuredClone(root);
  const parts: Json[] = out.parts ?? [out];
  for (const part of parts) {
    graphScenario(part.scenario);
    part.variants = part.variants && Object.fromEntries(Object.entries(part.variants as Json).map(([n, o]) => [n, rewriteKeys(o as Json)]));
    if (part.sweep?.grid) part.sweep.grid = rewriteKeys(part.sweep.grid);
    if (part.sweep?.zip) part.sweep.zip = rewriteKeys(part.sweep.zip);
    if (part.quick?.scenario) {
      const q = part.quick.scenario as Json;
      if (q.leaf !== undefined) {
        q.services = { backend: { fleet: q.leaf } };
        delete q.leaf;
      }
    }
  }
  if (out.quick?.scenario?.leaf !== undefined) {
    out.quick.scenario.services = { backend: { fleet: out.quick.scenario.leaf } };
    delete out.quick.scenario.leaf;
  }
  for (const key of ['variants', 'sweep'] as const) if (out[key] === undefined) delete out[key];
  for (const part of parts) if (part.variants === undefined) delete part.variants;
  // The descriptions' placeholders name the leaf where the graph form keeps it: the service's fleet.
  const moved = (text: unknown) => (typeof text === 'string' ? text.replace(/scenario\.leaf\./g, 'scenario.services.backend.fleet.') : text);
  out.description = moved(out.description);
  if (out.parts) for (const part of out.parts as Json[]) part.description = moved(part.description);
  return out;
}

function cells(root: Json, quick: boolean) {
  const parsed = parseExperiment(root);
  if (!parsed.ok) throw new Error(parsed.errors.join('\n'));
  const expanded = expandExperiment(parsed.experiment, { quick });
  if (!expanded.ok) throw new Error(expanded.errors.join('\n'));
  return expanded.plan.parts.flatMap((p) => p.cells);
}

/** The scenario without its graph: what the stack form resolves to. */
function withoutGraph(scenario: Scenario): Scenario {
  const { graph: _graph, ...rest } = scenario;
  return rest;
}

describe('a stack + leaf scenario written as a graph of one service', () => {
  it.each(SHIPPED)('%s resolves, cell by cell, to the stack form plus its graph', (file) => {
    const root = JSON.parse(readFileSync(file, 'utf8')) as Json;
    for (const quick of [false, true]) {
      const stack = cells(root, quick);
      const graph = cells(asOneServiceGraph(root), quick);
      // Cells are the same, their parameters named by the path of the fleet instead of the leaf.
      const named = (c: { part: string; variant: string; params: Json }) => [c.part, c.variant, Object.entries(c.params).map(([k, v]) => [graphPath(k), v])];
      expect(graph.map(named)).toEqual(stack.map(named));
      graph.forEach((cell, i) => {
        const g = cell.scenario.graph;
        expect(g?.services.map((s) => [s.name, s.endpoints.map((e) => e.name)])).toEqual([['backend', ['call']]]);
        expect(g?.services[0]?.fleet).toEqual(stack[i]?.scenario.leaf);
        expect(withoutGraph(cell.scenario)).toEqual(stack[i]?.scenario);
      });
    }
  });

  it.each(SHIPPED)('%s gives the same results as the stack form (the first cell of each part, shortened)', (file) => {
    const root = JSON.parse(readFileSync(file, 'utf8')) as Json;
    const stack = cells(root, true);
    const graph = cells(asOneServiceGraph(root), true);
    const firstOfPart = new Set(stack.map((c) => c.part));
    for (const part of firstOfPart) {
      const i = stack.findIndex((c) => c.part === part);
      // A bounded run without warm-up (both forms are cut at the same event): the comparison is exact, not statistical.
      const bound = { maxEvents: 20_000, warmupMs: 0 };
      const a = new Model({ ...(stack[i] as { scenario: Scenario }).scenario, ...bound }, { seed: 7 }).run();
      const b = new Model({ ...(graph[i] as { scenario: Scenario }).scenario, ...bound }, { seed: 7 }).run();
      expect(b).toEqual(a);
      expect(a.operations.offered).toBeGreaterThan(0);
    }
  });

  it('simulate() runs a one-service graph as the stack form', () => {
    const stack = { workload: { kind: 'burst', clients: 20 }, stack: [{ name: 'app' }], leaf: { kind: 'server', serviceMs: 5, faults: [{ probability: 0.3 }] } };
    const graph = {
      workload: { kind: 'burst', clients: 20, entry: { service: 'api' } },
      stack: [{ name: 'app' }],
      services: { api: { fleet: stack.leaf, endpoints: { get: {} } } },
    };
    const a = simulate(stack, { seed: 3 });
    expect(simulate(graph, { seed: 3 })).toEqual(a);
    expect(a.operations.offered).toBe(20);
  });

  it('refuses, naming each field, the parts of a graph the model does not run yet', () => {
    const graph = {
      workload: { kind: 'burst', clients: 1, entry: [{ service: 'fe', endpoint: 'page' }, { service: 'fe', endpoint: 'put' }] },
      stack: [{}],
      services: {
        fe: {
          fleet: { kind: 'server', serviceMs: 1 },
          endpoints: { page: { steps: [{ kind: 'work' }, { kind: 'call', calls: [{ service: 'db' }] }] }, put: { method: 'PUT' } },
        },
        db: { fleet: { kind: 'occ' }, endpoints: { get: {} } },
      },
    };
    let error: unknown;
    try {
      simulate(graph);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ScenarioError);
    expect((error as ScenarioError).problems).toEqual([
      "scenario.services.fe.endpoints.put.method PUT differs from the operation's GET: not simulated yet",
      'scenario.services.db.fleet: an optimistic-concurrency fleet in a graph with handlers is not simulated yet',
    ]);
    graph.workload.entry = [{ service: 'fe', endpoint: 'put' }];
    (graph.services.db as { fleet: unknown }).fleet = { kind: 'server', serviceMs: 1 };
    expect(() => simulate(graph)).toThrow('scenario.services.fe.endpoints.put.method PUT differs from the operation\'s GET: not simulated yet');
  });
});
