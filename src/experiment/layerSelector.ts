// Layer selectors: a path that names layers by name wherever they are (`layers[sdk].policy.budget`),
// resolved against a scenario as written into the concrete dotted paths it stands for.
import { layerName } from './layerNames.js';
import { listSome } from './listSome.js';
import { missingNamedEntry } from './namedEntries.js';
import type { PathSegment } from './Problem.js';
import { scenarioRelative, splitPath } from './setPath.js';

/** The word that opens a selector's list of layer names: `layers[app,client]`. */
export const SELECTOR_WORD = 'layers';
/** In a selector's list, every layer: `layers[*]`. */
export const EVERY_LAYER = '*';
/** What a selector looks like, for messages. */
export const SELECTOR_FORMS = `${SELECTOR_WORD}[<name>], ${SELECTOR_WORD}[<name>,<name>] or ${SELECTOR_WORD}[${EVERY_LAYER}]`;

const OPENING = new RegExp(`(^|\\.)${SELECTOR_WORD}\\[`);

/** A selector taken apart: where to look, which layers, and the path inside each layer. */
export interface LayerSelector {
  /** The selector as written. */
  text: string;
  /** Only stacks under this path of the scenario (`services.frontend`); [] for every stack. */
  scope: PathSegment[];
  /** The layer names listed, or null for `*`. */
  names: string[] | null;
  /** The path inside each matched layer (`['policy', 'budget']`); [] for the layer itself. */
  rest: PathSegment[];
}

/** One stack of a scenario as written: where it is and its layers. */
export interface WrittenStack {
  path: PathSegment[];
  layers: unknown[];
}

/** What a selector matched: the concrete paths (relative to the scenario), one per matched layer, in the scenario's order. */
export interface SelectorMatch {
  paths: PathSegment[][];
  /** The matched layers' own paths (`services.users.endpoints.get.steps.1.calls.0.stack.2`), for messages and counts. */
  layers: string[];
}

/** A path's concrete paths: itself when it is no selector, else every layer it matches; or why not. */
export type ResolvedPath = ({ ok: true; selector: LayerSelector | null } & SelectorMatch) | { ok: false; problem: string };

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** Whether a dotted path (relative to the scenario) names layers by name (`...layers[...]...`). */
export function isLayerSelector(path: string): boolean {
  return OPENING.test(path);
}

/**
 * Takes a selector apart: `[<scope>.]layers[<names>][.<path in the layer>]`, the names separated by
 * commas (each at most once) or `*`; a leading `scenario.` is accepted as everywhere. Returns the
 * problem as text when it is not one (no closing bracket, an empty or repeated name, a second
 * `layers[`, an empty segment).
 */
export function parseLayerSelector(text: string): LayerSelector | string {
  const open = OPENING.exec(text);
  if (open === null) return `is not a layer selector (write ${SELECTOR_FORMS})`;
  const start = open.index + (open[1] ?? '').length;
  const listFrom = start + SELECTOR_WORD.length + 1;
  const close = text.indexOf(']', listFrom);
  if (close < 0) return `has no closing "]" after ${SELECTOR_WORD}[ (write ${SELECTOR_FORMS})`;
  const after = text.slice(close + 1);
  if (after !== '' && !after.startsWith('.')) return `must go on with "." or end after "]" (got ${JSON.stringify(after)})`;
  if (isLayerSelector(after.slice(1))) return `names layers twice (one ${SELECTOR_WORD}[...] per path)`;
  const names = text.slice(listFrom, close).split(',').map((n) => n.trim());
  if (names.some((n) => n === '')) return `has an empty layer name in ${SELECTOR_WORD}[${text.slice(listFrom, close)}] (write ${SELECTOR_FORMS})`;
  const repeated = names.find((n, i) => names.indexOf(n) !== i);
  if (repeated !== undefined) return `names the layer ${JSON.stringify(repeated)} twice`;
  if (names.includes(EVERY_LAYER) && names.length > 1) return `cannot list names beside ${EVERY_LAYER} (${EVERY_LAYER} is every layer)`;
  let scope: PathSegment[];
  let rest: PathSegment[];
  try {
    scope = start === 0 ? [] : scenarioRelative(splitPath(text.slice(0, start - 1)));
    rest = after === '' ? [] : splitPath(after.slice(1));
  } catch {
    return 'is not a valid path (empty segment)';
  }
  return { text, scope, names: names[0] === EVERY_LAYER ? null : names, rest };
}

/**
 * Every stack written in a scenario, in a fixed order: the scenario's `stack`, each named workload's
 * `stack`, then each call's `stack` (services, endpoints, steps and calls in file order). A call
 * without a written stack has none here (its default one-layer stack is filled in later).
 */
export function writtenStacks(scenario: unknown): WrittenStack[] {
  const stacks: WrittenStack[] = [];
  if (!isObject(scenario)) return stacks;
  if (Array.isArray(scenario.stack)) stacks.push({ path: ['stack'], layers: scenario.stack });
  if (isObject(scenario.workloads)) {
    for (const [name, w] of Object.entries(scenario.workloads)) {
      if (isObject(w) && Array.isArray(w.stack)) stacks.push({ path: ['workloads', name, 'stack'], layers: w.stack });
    }
  }
  if (!isObject(scenario.services)) return stacks;
  for (const [service, s] of Object.entries(scenario.services)) {
    if (!isObject(s) || !isObject(s.endpoints)) continue;
    for (const [endpoint, e] of Object.entries(s.endpoints)) {
      if (!isObject(e) || !Array.isArray(e.steps)) continue;
      e.steps.forEach((step: unknown, i) => {
        if (!isObject(step) || !Array.isArray(step.calls)) return;
        step.calls.forEach((call: unknown, j) => {
          if (isObject(call) && Array.isArray(call.stack)) {
            stacks.push({ path: ['services', service, 'endpoints', endpoint, 'steps', i, 'calls', j, 'stack'], layers: call.stack });
          }
        });
      });
    }
  }
  return stacks;
}

/** The names of the layers written in a scenario's stacks (those under `scope`), each once, in the order of `writtenStacks`. */
export function writtenLayerNames(scenario: unknown, scope: readonly PathSegment[] = []): string[] {
  const names = new Set<string>();
  for (const stack of writtenStacks(scenario)) {
    if (startsWith(stack.path, scope)) stack.layers.forEach((layer: unknown, i) => names.add(layerName(isObject(layer) ? layer : {}, i)));
  }
  return [...names];
}

function startsWith(path: readonly PathSegment[], prefix: readonly PathSegment[]): boolean {
  return prefix.length <= path.length && prefix.every((s, i) => String(s) === String(path[i]));
}

/** Why a selector's scope is not a place of the scenario, or null when it is one. */
function scopeProblem(scenario: unknown, scope: readonly PathSegment[]): string | null {
  if (scope.length === 0 || !isObject(scenario)) return null;
  const missing = missingNamedEntry(scenario, [...scope, SELECTOR_WORD, 0]);
  if (missing !== null) return missing;
  let at: unknown = scenario;
  for (const s of scope) at = isObject(at) || Array.isArray(at) ? (at as Record<string, unknown>)[String(s)] : undefined;
  return at === undefined ? `there is nothing at ${scope.join('.')} in the scenario` : null;
}

/**
 * The concrete paths of a selector in a scenario as written: for every stack under the selector's
 * scope (`writtenStacks`), every layer whose name (`layerName`: its own, or layer<i>) is listed,
 * followed by the path inside the layer. A selector matching no layer, or a listed name matching
 * none, is a problem naming the layers that exist there.
 */
export function matchLayerSelector(scenario: unknown, selector: LayerSelector): SelectorMatch | string {
  const scoped = scopeProblem(scenario, selector.scope);
  if (scoped !== null) return scoped;
  const stacks = writtenStacks(scenario).filter((s) => startsWith(s.path, selector.scope));
  const where = selector.scope.length === 0 ? 'the scenario' : selector.scope.join('.');
  const paths: PathSegment[][] = [];
  const layers: string[] = [];
  const seen = new Set<string>();
  const found = new Set<string>();
  for (const stack of stacks) {
    stack.layers.forEach((layer: unknown, i) => {
      const name = layerName(isObject(layer) ? layer : {}, i);
      seen.add(name);
      if (selector.names !== null && !selector.names.includes(name)) return;
      found.add(name);
      paths.push([...stack.path, i, ...selector.rest]);
      layers.push([...stack.path, i].join('.'));
    });
  }
  if (stacks.length === 0) return `matches no layer: ${where} has no stack written in it`;
  const missing = (selector.names ?? []).filter((n) => !found.has(n));
  if (missing.length > 0) {
    const which = missing.map((n) => JSON.stringify(n)).join(', ');
    return `matches no layer named ${which} (layers in ${where}: ${listSome([...seen])})`;
  }
  if (paths.length === 0) return `matches no layer: the stacks in ${where} have no layers`;
  return { paths, layers };
}

/**
 * The one entry point for a dotted path relative to a scenario (as variants, sweep axes, `--set` and
 * `tune.space` write it): a plain path is itself (split, `scenario.` dropped); a selector is every
 * concrete path it matches in `scenario` as written (`matchLayerSelector`). The problem otherwise.
 */
export function resolvePathKey(scenario: unknown, key: string): ResolvedPath {
  if (!isLayerSelector(key)) {
    try {
      return { ok: true, selector: null, paths: [scenarioRelative(splitPath(key))], layers: [] };
    } catch {
      return { ok: false, problem: 'is not a valid path (empty segment)' };
    }
  }
  const selector = parseLayerSelector(key);
  if (typeof selector === 'string') return { ok: false, problem: selector };
  const match = matchLayerSelector(scenario, selector);
  if (typeof match === 'string') return { ok: false, problem: match };
  return { ok: true, selector, ...match };
}
