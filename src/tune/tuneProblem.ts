import { canonicalJson, cloneJson, matchLayerSelector, resolvePathKey, resolveScenario, setPath } from '../experiment/index.js';
import type { SpaceDimension, SpacePoint } from './searchSpace.js';

/** A part of the tuned experiment: its name and its scenario as written (after quick mode and --set). */
export interface TunePart {
  name: string;
  description: string;
  scenario: Record<string, unknown>;
}

/** Which number of which run a goal reads: a metric, in one part, optionally of one metric window. */
export interface MetricTarget {
  metric: string;
  /** The parts it is read in (one, or every part). */
  parts: string[];
  window: string | null;
}

/** An objective after validation. */
export interface Objective extends MetricTarget {
  goal: 'minimize' | 'maximize';
  /** Absolute equivalence margin, or null for 1% of the leader's mean. */
  tolerance: number | null;
  /** How it is named in tables: `amplification (outage)`. */
  label: string;
}

/** A constraint after validation: one part each (a constraint without part holds in every part). */
export interface Constraint extends MetricTarget {
  min: number | null;
  max: number | null;
  label: string;
}

/** A fixed contender: a preset replacing one layer's policy. */
export interface PresetContender {
  layer: string;
  name: string;
}

/** Everything a search needs, validated. */
export interface TuneProblem {
  name: string;
  description: string;
  seed: number;
  /** The experiment had `parts` (the round files keep that shape). */
  hasParts: boolean;
  parts: TunePart[];
  space: SpaceDimension[];
  presets: PresetContender[];
  objectives: Objective[];
  constraints: Constraint[];
  candidates: number;
  maxRuns: number;
}

/** A validated problem, or every problem found (dotted paths from the file's root). */
export type PrepareTuneResult = { ok: true; problem: TuneProblem } | { ok: false; errors: string[] };

/**
 * Where a metric of a window is kept among a run's flattened metrics. Without a window it is the
 * metric's own name (`amplification`); with one, `windows.<window>.<metric>`.
 */
export function metricKey(metric: string, window: string | null): string {
  return window === null ? metric : `windows.${window}.${metric}`;
}

/**
 * Applies overrides (dotted paths relative to a scenario, or layer selectors: one value at every
 * layer matched, `resolvePathKey`) to a copy of `scenario`. Throws an Error naming a selector that
 * matches nothing.
 */
export function applyOverrides(scenario: Record<string, unknown>, overrides: Record<string, unknown>): Record<string, unknown> {
  const copy = cloneJson(scenario);
  for (const [path, value] of Object.entries(overrides)) {
    const resolved = resolvePathKey(scenario, path);
    if (!resolved.ok) throw new Error(`${path} ${resolved.problem}`);
    for (const concrete of resolved.paths) setPath(copy, concrete, value);
  }
  return copy;
}

/** The overrides that make a candidate of a point: one per dimension. */
export function pointOverrides(space: readonly SpaceDimension[], point: SpacePoint): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  space.forEach((s, i) => (out[s.path] = cloneJson(point[i])));
  return out;
}

/**
 * The overrides that make a preset contender in one part: the policy of every layer of that name,
 * in every stack written in the scenario (a graph's calls too), replaced wholesale; each stack
 * holding one is given whole (an array replaces).
 */
export function presetOverrides(part: TunePart, preset: PresetContender): Record<string, unknown> {
  const match = matchLayerSelector(part.scenario, { text: preset.layer, scope: [], names: [preset.layer], rest: [] });
  const out: Record<string, unknown> = {};
  if (typeof match === 'string') return out;
  for (const path of match.paths) {
    const stackPath = path.slice(0, -1);
    const key = stackPath.join('.');
    const stack = (out[key] ?? cloneJson(stackPath.reduce<unknown>((at, s) => (at as Record<string, unknown>)[String(s)], part.scenario))) as Array<Record<string, unknown>>;
    (stack[path[path.length - 1] as number] as Record<string, unknown>).policy = { preset: preset.name };
    out[key] = stack;
  }
  return out;
}

/**
 * The resolved scenarios of a candidate in every part (canonical JSON, joined), or the messages
 * of the first part where it is not a valid scenario.
 */
export function resolveCandidate(
  problem: Pick<TuneProblem, 'parts' | 'hasParts'>,
  overridesOf: (part: TunePart) => Record<string, unknown>,
): { ok: true; key: string } | { ok: false; errors: string[] } {
  const keys: string[] = [];
  for (const [i, part] of problem.parts.entries()) {
    let input: Record<string, unknown>;
    try {
      input = applyOverrides(part.scenario, overridesOf(part));
    } catch (e) {
      return { ok: false, errors: [(e as Error).message] };
    }
    const result = resolveScenario(input, problem.hasParts ? ['parts', i, 'scenario'] : ['scenario']);
    if (!result.ok) return { ok: false, errors: result.errors };
    keys.push(canonicalJson(result.scenario));
  }
  return { ok: true, key: keys.join('\n') };
}
