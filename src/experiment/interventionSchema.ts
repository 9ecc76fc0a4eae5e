import { z } from 'zod';
import { layerAt, type Intervention, type InterventionChange, type StackRef } from '../model/interventions.js';
import type { Leaf, Scenario } from '../model/scenario.js';
import { fields as f } from '../policy/schema/fields.js';
import { describeValue } from '../policy/schema/describeValue.js';
import { doc } from '../policy/schema/schemaDocs.js';
import type { PathSegment, Problem } from './Problem.js';
import { cloneJson, scenarioRelative, setPath, splitPath } from './setPath.js';

/**
 * A scenario's timed interventions as written (docs/experiments.md, "Timed interventions"): at `atMs` the
 * scenario's fields at the `set` paths (relative to the scenario, as variants write them) take the
 * given values. The structure is checked here; which paths may change, and whether the scenario
 * stays valid, by {@link resolveInterventions}.
 */
export const interventionsSchema = doc(
  f
    .array(
      f.object({
        atMs: doc(f.number('>= 0'), 'When the change applies (after the warm-up); it governs every decision at or after this moment.'),
        set: doc(
          f.record(z.unknown(), 'an object of dotted paths and values'),
          'Paths relative to the scenario (as variants write them) and their new values: a layer\'s `policy` or its fields, a fleet\'s `queueLimit`, a service\'s `maxInFlight`, a call\'s `cache.warm` or a shared cache\'s `caches.<name>.warm` (fill its N most popular keys).',
        ),
      }),
      'interventions',
    )
    .optional(),
  'Timed interventions, applied in the order of atMs (equal times in the order written): an operator turning retries off, adding a budget (it starts empty), shedding load by lowering queueLimit.',
);

/** What one path of an intervention changes. */
export type SetTarget =
  | { kind: 'policy'; stack: StackRef; layer: number }
  | { kind: 'queueLimit'; service: string | null }
  | { kind: 'maxInFlight'; service: string }
  | { kind: 'warm'; call: Extract<StackRef, { kind: 'call' }> }
  | { kind: 'warmShared'; cache: string };

const SUPPORTED =
  'an intervention changes a layer\'s policy (<stack>.<i>.policy or one of its fields, the stack being stack, workloads.<name>.stack or a call\'s stack), a fleet\'s queueLimit (leaf.queueLimit, leaf.server.queueLimit, leaf.clusters.<i>.server.queueLimit, or the same under services.<name>.fleet), a service\'s maxInFlight (services.<name>.maxInFlight), or warms a call\'s cache (<call>.cache.warm: the number of most popular keys) or a shared cache (caches.<name>.warm)';

/** Policy fields that are built into the run's structure once and stay as they were: a change to them is refused. */
const FIXED_POLICY_FIELDS = [
  ['hedging', 'hedged calls are armed as they start'],
  ['seeding', "the jitter streams are seeded at the start"],
  ['retryHostPredicate', "the load balancer's memory of previous hosts is set up at the start"],
] as const;

const isIndex = (s: PathSegment | undefined): s is number => typeof s === 'number';
const isName = (s: PathSegment | undefined): s is string => typeof s === 'string';

/** What `segments` (relative to the scenario) change, or undefined when an intervention cannot change it. */
function targetOf(segments: readonly PathSegment[]): SetTarget | undefined {
  const [a, b, c, d, e, g, h, i, j] = segments;
  const policyAt = (at: number, stack: StackRef): SetTarget | undefined =>
    isIndex(segments[at]) && segments[at + 1] === 'policy' ? { kind: 'policy', stack, layer: segments[at] as number } : undefined;
  if (a === 'stack') return policyAt(1, { kind: 'workload', workload: null });
  if (a === 'workloads' && isName(b) && c === 'stack') return policyAt(3, { kind: 'workload', workload: b });
  if (a === 'leaf') return fleetLimit(segments.slice(1), null);
  if (a === 'caches' && isName(b) && c === 'warm' && segments.length === 3) return { kind: 'warmShared', cache: b };
  if (a !== 'services' || !isName(b)) return undefined;
  if (c === 'maxInFlight' && segments.length === 3) return { kind: 'maxInFlight', service: b };
  if (c === 'fleet') return fleetLimit(segments.slice(3), b);
  if (c === 'endpoints' && isName(d) && e === 'steps' && isIndex(g) && h === 'calls' && isIndex(i)) {
    if (j === 'stack') return policyAt(9, { kind: 'call', service: b, endpoint: d, step: g, call: i });
    if (j === 'cache' && segments[9] === 'warm' && segments.length === 10) return { kind: 'warm', call: { kind: 'call', service: b, endpoint: d, step: g, call: i } };
  }
  return undefined;
}

/** What a dotted path of an intervention's `set` changes (`scenario.` accepted), or undefined when an intervention cannot change it or it is no path. */
export function setTargetOf(path: string): SetTarget | undefined {
  try {
    return targetOf(scenarioRelative(splitPath(path)));
  } catch {
    return undefined;
  }
}

/** A fleet's `queueLimit` path (below `leaf` or `services.<name>.fleet`). */
function fleetLimit(rest: readonly PathSegment[], service: string | null): SetTarget | undefined {
  const ok =
    (rest.length === 1 && rest[0] === 'queueLimit') ||
    (rest.length === 2 && rest[0] === 'server' && rest[1] === 'queueLimit') ||
    (rest.length === 4 && rest[0] === 'clusters' && isIndex(rest[1]) && rest[2] === 'server' && rest[3] === 'queueLimit');
  return ok ? { kind: 'queueLimit', service } : undefined;
}

/** The fleet a queue-limit target names in a resolved scenario. */
function fleetOf(sc: Scenario, service: string | null): Leaf | undefined {
  return service === null ? (sc.graph === undefined ? sc.leaf : undefined) : sc.graph?.services.find((s) => s.name === service)?.fleet;
}

const limitOf = (q: number | 'unlimited'): number => (q === 'unlimited' ? Infinity : q);

/** A scenario's parse: its resolved form, or its problems (paths relative to the scenario). */
export type ScenarioParse = { ok: true; scenario: Scenario } | { ok: false; problems: Problem[] };

/**
 * Resolves a valid scenario's `interventions` (docs/experiments.md, "Timed interventions"). In the order they
 * apply (atMs, equal times in the order written), each one's paths are set on the scenario as the
 * earlier ones left it and the scenario is parsed again (`parse`, the scenario schema without
 * interventions), so that a value obeys the field's own rule and a policy is resolved as written
 * (presets, defaults); its changes are then read from that resolved scenario. Problems, with paths
 * from the scenario: a path outside what an intervention can change, a value the field refuses
 * (at `interventions.<i>.set.<path>`), a moment not within the run (`atMs` >= `horizonMs`), a
 * change to a policy field fixed at the start (hedging, seeding, retryHostPredicate).
 */
export function resolveInterventions(
  input: Record<string, unknown>,
  base: Scenario,
  parse: (input: unknown) => ScenarioParse,
): { interventions: Intervention[] | undefined; problems: Problem[] } {
  const written = input.interventions as Array<{ atMs: number; set: Record<string, unknown> }> | undefined;
  const problems: Problem[] = [];
  if (written === undefined || written.length === 0) return { interventions: undefined, problems };
  const order = written.map((_, i) => i).sort((x, y) => (written[x] as { atMs: number }).atMs - (written[y] as { atMs: number }).atMs || x - y);
  let current: Record<string, unknown> = cloneJson(input);
  delete current.interventions;
  let scenario = base;
  const out: Intervention[] = [];
  for (const index of order) {
    const iv = written[index] as { atMs: number; set: Record<string, unknown> };
    const at = (...rest: PathSegment[]): PathSegment[] => ['interventions', index, ...rest];
    const before = problems.length;
    if (iv.atMs >= base.horizonMs) {
      problems.push({ path: at('atMs'), text: `must be within the run: less than horizonMs (got ${iv.atMs} >= ${base.horizonMs})` });
    }
    const keys = Object.keys(iv.set);
    if (keys.length === 0) problems.push({ path: at('set'), text: 'must set at least one path' });
    const next = cloneJson(current);
    const targets = setTargets(iv.set, next, at, problems);
    if (problems.length > before) continue;
    const parsed = parse(next);
    if (!parsed.ok) {
      for (const p of parsed.problems) problems.push(blame(p, targets, at));
      continue;
    }
    const changes = interventionChanges(targets, parsed.scenario, scenario, iv.set, at, problems);
    if (problems.length > before) continue;
    out.push({ atMs: iv.atMs, paths: keys, changes });
    current = next;
    scenario = parsed.scenario;
  }
  return { interventions: problems.length > 0 ? undefined : out, problems };
}

/** A path an intervention sets: as written, its segments from the scenario, and what it changes. */
interface SetEntry {
  key: string;
  segments: PathSegment[];
  target: SetTarget;
}

/**
 * The paths of an intervention's `set`, each applied to `next` (a cache's warming only checked); a
 * path that is not valid, not one an intervention can change, or whose value cannot be set is a
 * problem at `at('set', path)` and left out.
 */
function setTargets(set: Record<string, unknown>, next: Record<string, unknown>, at: (...rest: PathSegment[]) => PathSegment[], problems: Problem[]): SetEntry[] {
  const targets: SetEntry[] = [];
  for (const key of Object.keys(set)) {
    let segments: PathSegment[];
    try {
      segments = scenarioRelative(splitPath(key));
    } catch (e) {
      problems.push({ path: at('set', key), text: `is not a valid path (${e instanceof Error ? e.message : String(e)})` });
      continue;
    }
    const target = targetOf(segments);
    if (target === undefined) {
      problems.push({ path: at('set', key), text: `is not a setting an intervention can change (${SUPPORTED})` });
      continue;
    }
    // Warming is an action, not a field of the cache: its value is checked here, the scenario left as it is.
    if (target.kind === 'warm' || target.kind === 'warmShared') {
      const n = set[key];
      if (typeof n !== 'number' || !Number.isInteger(n) || n < 1) {
        problems.push({ path: at('set', key), text: `must be a positive integer, the number of most popular keys to fill (got ${describeValue(n)})` });
        continue;
      }
      targets.push({ key, segments, target });
      continue;
    }
    try {
      setPath(next, segments, set[key]);
    } catch (e) {
      problems.push({ path: at('set', key), text: e instanceof Error ? e.message : String(e) });
      continue;
    }
    targets.push({ key, segments, target });
  }
  return targets;
}

/**
 * An intervention's changes, read from the scenario it leaves (`after`) against the one before it:
 * paths into the same layer, fleet or service make one change; a refusal is a problem at the path
 * of the field it concerns.
 */
function interventionChanges(
  targets: readonly SetEntry[],
  after: Scenario,
  before: Scenario,
  set: Record<string, unknown>,
  at: (...rest: PathSegment[]) => PathSegment[],
  problems: Problem[],
): InterventionChange[] {
  const changes: InterventionChange[] = [];
  const seen = new Set<string>();
  for (const { key, target } of targets) {
    const id = JSON.stringify(target);
    if (seen.has(id)) continue;
    seen.add(id);
    const same = targets.filter((t) => JSON.stringify(t.target) === id);
    const refuse = (text: string, field?: string) => {
      const named = field === undefined ? undefined : same.find((t) => t.segments.includes(field));
      problems.push({ path: at('set', (named ?? { key }).key), text });
    };
    const change = changeOf(target, after, before, refuse, set[key]);
    if (change !== undefined) changes.push(change);
  }
  return changes;
}

/** A problem of the scenario as an intervention left it: at the path of the `set` entry it lies under (or that lies under it). */
function blame(p: Problem, targets: ReadonlyArray<{ key: string; segments: PathSegment[] }>, at: (...rest: PathSegment[]) => PathSegment[]): Problem {
  const prefixOf = (a: readonly PathSegment[], b: readonly PathSegment[]) => a.length <= b.length && a.every((s, i) => s === b[i]);
  const t = targets.find((t) => prefixOf(t.segments, p.path)) ?? targets.find((t) => prefixOf(p.path, t.segments));
  if (t === undefined) return { path: at('set'), text: `makes ${p.path.join('.')} invalid: it ${p.text}` };
  return { path: [...at('set', t.key), ...p.path.slice(t.segments.length).map(String)], text: p.text };
}

/** The change a target makes, read from the scenario after the intervention (`after`) against the one before it. */
function changeOf(target: SetTarget, after: Scenario, before: Scenario, refuse: (text: string, field?: string) => void, value: unknown): InterventionChange | undefined {
  switch (target.kind) {
    case 'policy': {
      const layer = layerAt(after, target.stack, target.layer);
      const old = layerAt(before, target.stack, target.layer);
      if (layer === undefined || old === undefined) {
        refuse(
          target.stack.kind === 'workload' && target.stack.workload === null && after.graph?.workloads !== undefined
            ? 'names the stack of a scenario with several workloads: use workloads.<name>.stack'
            : 'names no layer of the scenario',
        );
        return undefined;
      }
      for (const [field, why] of FIXED_POLICY_FIELDS) {
        if (JSON.stringify(layer.policy[field]) !== JSON.stringify(old.policy[field])) {
          refuse(`changes the policy's ${field}, which cannot change during a run (${why})`, field);
          return undefined;
        }
      }
      return { kind: 'policy', stack: target.stack, layer: target.layer, policy: layer.policy };
    }
    case 'queueLimit': {
      const fleet = fleetOf(after, target.service);
      if (fleet === undefined || (fleet.kind !== 'server' && fleet.kind !== 'pool')) {
        refuse('names no fleet of servers with a queue');
        return undefined;
      }
      const limits = fleet.kind === 'server' ? [limitOf(fleet.queueLimit)] : fleet.clusters.flatMap((c) => c.backends.map((b) => limitOf(b.queueLimit)));
      return { kind: 'queueLimit', service: target.service, limits };
    }
    case 'maxInFlight': {
      const service = after.graph?.services.find((s) => s.name === target.service);
      if (service === undefined) {
        refuse('names no service of the graph');
        return undefined;
      }
      return { kind: 'maxInFlight', service: target.service, value: limitOf(service.maxInFlight) };
    }
    case 'warm': {
      const ref = target.call;
      const step = after.graph?.services.find((s) => s.name === ref.service)?.endpoints.find((ep) => ep.name === ref.endpoint)?.steps?.[ref.step];
      const cache = step?.kind === 'call' ? step.calls[ref.call]?.cache : undefined;
      if (cache === undefined) {
        refuse('names a call without a cache (warming fills a call\'s cache)');
        return undefined;
      }
      return { kind: 'warm', service: ref.service, cache: cache.name, keys: value as number };
    }
    case 'warmShared': {
      const tiers = (after.graph?.caches ?? []).map((c) => c.name);
      if (!tiers.includes(target.cache)) {
        refuse(`names no shared cache (${tiers.length > 0 ? `the shared caches are ${tiers.join(', ')}` : 'the scenario declares no caches'})`);
        return undefined;
      }
      return { kind: 'warm', service: null, cache: target.cache, keys: value as number };
    }
  }
}
