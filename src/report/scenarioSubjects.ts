import { listSome } from '../experiment/index.js';
import { callsOf, WORKLOAD_CALLER } from '../model/graph/ServiceGraph.js';
import type { Leaf, Scenario } from '../model/scenario.js';
import type { MetricSubject } from './metrics.js';

/**
 * The names of what a scenario has that metric names refer to (`metricSubjects`): its services,
 * the edges between callers and callees (`workload->frontend`, `frontend->db`), each service's
 * caches and its shared cache tiers, its metric windows, its layers (as `attempts.<layer>` names them), its graph's named
 * workloads, its pools' clusters and its clustering bin widths.
 */
export interface ScenarioSubjects {
  services: string[];
  edges: string[];
  caches: Map<string, string[]>;
  /** The graph's shared cache tiers (`caches.<name>`). */
  sharedCaches: string[];
  windows: string[];
  layers: string[];
  workloads: string[];
  clusters: string[];
  binMs: string[];
}

function add(list: string[], name: string): void {
  if (!list.includes(name)) list.push(name);
}

function clustersOf(leaf: Leaf, into: string[]): void {
  if (leaf.kind === 'pool') for (const c of leaf.clusters) add(into, c.name);
}

/** What a resolved scenario has that metric names can refer to, each list in declaration order. */
export function scenarioSubjects(sc: Scenario): ScenarioSubjects {
  const out: ScenarioSubjects = {
    services: [],
    edges: [],
    caches: new Map(),
    sharedCaches: (sc.graph?.caches ?? []).map((c) => c.name),
    windows: (sc.metrics.windows ?? []).map((w) => w.name),
    layers: [],
    workloads: [],
    clusters: [],
    binMs: sc.metrics.clusteringBinMs.map(String),
  };
  clustersOf(sc.leaf, out.clusters);
  const graph = sc.graph;
  if (graph === undefined) {
    out.layers = sc.stack.map((l) => l.name);
    return out;
  }
  // A graph's totals count its workloads' layers: the scenario's stack, or each named workload's as `<workload>.<layer>`.
  if (graph.workloads === undefined) {
    out.layers = sc.stack.map((l) => l.name);
    for (const e of graph.entries) add(out.edges, `${WORKLOAD_CALLER}->${e.service}`);
  } else {
    for (const w of graph.workloads) {
      out.workloads.push(w.name);
      for (const l of w.stack) out.layers.push(`${w.name}.${l.name}`);
      for (const e of w.entries) add(out.edges, `${w.name}->${e.service}`);
    }
  }
  for (const s of graph.services) {
    out.services.push(s.name);
    clustersOf(s.fleet, out.clusters);
    const caches: string[] = [];
    for (const endpoint of s.endpoints) {
      for (const call of callsOf(endpoint)) {
        add(out.edges, `${s.name}->${call.service}`);
        if (call.cache !== undefined && call.cache.shared !== true) add(caches, call.cache.name);
      }
    }
    out.caches.set(s.name, caches);
  }
  return out;
}

/**
 * Whether the scenario has `subject`; when it does not, what the subject should have named and
 * what there is: `{ what: 'a service', known: 'services: frontend, db' }` (`listSome`: the first
 * few, then how many more), or `known: 'it has none'`.
 */
export function missingSubject(subject: MetricSubject, has: ScenarioSubjects): { what: string; known: string } | null {
  const check = (names: readonly string[], name: string, what: string, plural: string) =>
    names.includes(name) ? null : { what, known: names.length > 0 ? `${plural}: ${listSome(names)}` : `it has no ${plural}` };
  switch (subject.kind) {
    case 'service':
      return check(has.services, subject.name, 'a service', 'services');
    case 'edge':
      return check(has.edges, `${subject.caller}->${subject.callee}`, 'an edge (<caller>-><callee>)', 'edges');
    case 'cache':
      return check(has.caches.get(subject.service) ?? [], subject.name, `a cache of service ${JSON.stringify(subject.service)}`, 'caches there');
    case 'sharedCache':
      return check(has.sharedCaches, subject.name, 'a shared cache of caches', 'shared caches');
    case 'window':
      return check(has.windows, subject.name, 'a window of metrics.windows', 'windows');
    case 'layer':
      return check(has.layers, subject.name, 'a layer', 'layers');
    case 'workload':
      return check(has.workloads, subject.name, 'a workload of workloads', 'named workloads');
    case 'cluster':
      return check(has.clusters, subject.name, 'a cluster of a pool', 'clusters');
    case 'binMs':
      return check(has.binMs, subject.name, 'a bin width of metrics.clusteringBinMs', 'bin widths');
  }
}
