// Which layers a search tunes, by their full paths in the scenario as written (`stack.1`,
// `services.gateway.endpoints.get.steps.0.calls.1.stack.0`), and where each one is once resolved.
import { matchLayerSelector, resolvePathKey, writtenStacks, type PathSegment } from '../experiment/index.js';
import type { Layer, Scenario } from '../model/scenario.js';
import type { PresetContender, TunePart } from './tuneProblem.js';
import type { SpaceDimension } from './searchSpace.js';

/** A layer a search tunes: its full path in the scenario as written and its name there. */
export interface TunedLayer {
  /** The layer's path relative to the scenario (`services.gateway.endpoints.get.steps.0.calls.1.stack.0`). */
  path: PathSegment[];
  name: string;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** The written layer a concrete path (relative to the scenario) lies in or names, or null when it is in no stack. */
function layerOf(scenario: unknown, path: readonly PathSegment[]): TunedLayer | null {
  for (const stack of writtenStacks(scenario)) {
    const n = stack.path.length;
    if (path.length <= n || !stack.path.every((s, i) => String(s) === String(path[i]))) continue;
    const index = Number(path[n]);
    if (!Number.isInteger(index) || index < 0 || index >= stack.layers.length) return null;
    const layer = stack.layers[index];
    const name = isObject(layer) && typeof layer.name === 'string' ? layer.name : `layer${index}`;
    return { path: [...stack.path, index], name };
  }
  return null;
}

/**
 * The layers a space key sets in a scenario as written, by full path: every layer a selector
 * matches, the layer a plain path lies in, none for a path outside the stacks (or one that does
 * not resolve).
 */
export function dimensionLayers(scenario: unknown, key: string): TunedLayer[] {
  const resolved = resolvePathKey(scenario, key);
  if (!resolved.ok) return [];
  return resolved.paths.map((p) => layerOf(scenario, p)).filter((l): l is TunedLayer => l !== null);
}

/**
 * Every layer a search tunes in one part: those its space's keys set and those its presets replace,
 * each once, in the order of the scenario's stacks (`writtenStacks`).
 */
export function tunedLayers(part: TunePart, space: readonly SpaceDimension[], presets: readonly PresetContender[]): TunedLayer[] {
  const found = new Map<string, TunedLayer>();
  for (const d of space) for (const l of dimensionLayers(part.scenario, d.path)) found.set(l.path.join('.'), l);
  for (const p of presets) {
    const match = matchLayerSelector(part.scenario, { text: p.layer, scope: [], names: [p.layer], rest: [] });
    if (typeof match === 'string') continue;
    for (const path of match.paths) {
      const l = layerOf(part.scenario, path);
      if (l !== null) found.set(l.path.join('.'), l);
    }
  }
  const order = writtenStacks(part.scenario).flatMap((s) => s.layers.map((_, i) => [...s.path, i].join('.')));
  return [...found.values()].sort((a, b) => order.indexOf(a.path.join('.')) - order.indexOf(b.path.join('.')));
}

/**
 * The resolved layer at a written layer's path (`stack.<i>`, `workloads.<w>.stack.<i>`, or a
 * call's `services.<s>.endpoints.<e>.steps.<i>.calls.<j>.stack.<k>`), or undefined.
 */
export function resolvedLayerAt(scenario: Scenario, path: readonly PathSegment[]): Layer | undefined {
  const at = path.map(String);
  const index = (s: string | undefined) => Number(s);
  if (at[0] === 'stack' && at.length === 2) return scenario.stack[index(at[1])];
  if (at[0] === 'workloads' && at.length === 4) return scenario.graph?.workloads?.find((w) => w.name === at[1])?.stack[index(at[3])];
  if (at[0] !== 'services' || at.length !== 10) return undefined;
  const endpoint = scenario.graph?.services.find((s) => s.name === at[1])?.endpoints.find((e) => e.name === at[3]);
  const step = endpoint?.steps?.[index(at[5])];
  if (step === undefined || step.kind !== 'call') return undefined;
  return step.calls[index(at[7])]?.stack[index(at[9])];
}
