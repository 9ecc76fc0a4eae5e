import { isLayerSelector, MAIN_PART, matchLayerSelector, resolveDescriptions, resolvePathKey, resolveScenario, SELECTOR_WORD, splitPath, tuneSchema, writtenLayerNames, type TuneDimension, type TuneObjective, type TuneSection } from '../experiment/index.js';
import { WINDOW_METRICS } from '../metrics/MetricWindows.js';
import { isPresetName, PRESET_NAMES } from '../policy/presets.js';
import { isMetricName, METRIC_NAMES_TEXT, metricInfo, metricSubjects, type MetricRange } from '../report/metrics.js';
import { missingSubject, scenarioSubjects, type ScenarioSubjects } from '../report/scenarioSubjects.js';
import type { SpaceDimension } from './searchSpace.js';
import { dimensionLayers } from './tunedLayers.js';
import { metricKey, resolveCandidate, type Constraint, type Objective, type PrepareTuneResult, type PresetContender, type TunePart } from './tuneProblem.js';

/**
 * Metrics that are never 0 in a run that measured them, so that 1% of a mean is a usable
 * equivalence margin; every other metric (counts that can be 0, rates) needs a `tolerance`.
 */
const POSITIVE_METRIC = /^(amplification|leafCalls|writes|completionTimeMs|simulatedMs|operations\.offered|(latencyMs|operationMs)\.(mean|p50|p90|p99|p999|max))$/;

/** The window names of a scenario as written (`metrics.windows[].name`). */
function windowNames(scenario: Record<string, unknown>): string[] {
  const metrics = scenario.metrics as { windows?: Array<{ name?: unknown }> } | undefined;
  return (metrics?.windows ?? []).map((w) => w.name).filter((n): n is string => typeof n === 'string');
}

/** A metric's range as a rule: `between 0 and 1`, `>= 0`. */
function rangeRule(range: MetricRange): string {
  if (Number.isFinite(range.min) && Number.isFinite(range.max)) return `between ${range.min} and ${range.max}`;
  if (Number.isFinite(range.min)) return `>= ${range.min}`;
  return Number.isFinite(range.max) ? `<= ${range.max}` : 'any number';
}

/** What each part's resolved scenario has that metric names refer to (null: the scenario does not resolve; its problems are reported elsewhere). */
function partSubjects(parts: readonly TunePart[], hasParts: boolean): Map<string, ScenarioSubjects | null> {
  const out = new Map<string, ScenarioSubjects | null>();
  parts.forEach((part, i) => {
    const resolved = resolveScenario(part.scenario, hasParts ? ['parts', i, 'scenario'] : ['scenario']);
    out.set(part.name, resolved.ok ? scenarioSubjects(resolved.scenario) : null);
  });
  return out;
}

function targetLabel(metric: string, part: string | undefined, window: string | undefined, multipart: boolean): string {
  const where = [part !== undefined && multipart ? part : undefined, window].filter((x) => x !== undefined);
  return where.length > 0 ? `${metric} (${where.join(', ')})` : metric;
}

/** The texts of the tuned experiment: its description and its parts' with their placeholders resolved (problems pushed to `errors`; the text as written then). */
function tuneTexts(root: Record<string, unknown>, errors: string[]): { description: string; parts: Array<string | undefined> } {
  const texts = resolveDescriptions(root);
  if (!texts.ok) errors.push(...texts.problems);
  return texts.ok ? { description: texts.description, parts: texts.parts } : { description: (root.description as string) ?? '', parts: [] };
}

/** The parts of the tuned experiment as written: its `parts`, or its one scenario as the main part, with their resolved descriptions. */
function tuneParts(root: Record<string, unknown>, hasParts: boolean, texts: { description: string; parts: Array<string | undefined> }): TunePart[] {
  return hasParts
    ? (root.parts as Array<Record<string, unknown>>).map((p, i) => ({ name: p.name as string, description: texts.parts[i] ?? (p.description as string) ?? '', scenario: p.scenario as Record<string, unknown> }))
    : [{ name: MAIN_PART, description: texts.description, scenario: root.scenario as Record<string, unknown> }];
}

/** Variants and sweeps beside `tune`, at the root or in a part: the search makes its own candidates. */
function combinedProblems(root: Record<string, unknown>, hasParts: boolean): string[] {
  const errors: string[] = [];
  for (const key of ['variants', 'sweep'] as const) {
    if (root[key] !== undefined) errors.push(`${key} cannot be combined with tune (the search makes its own candidates)`);
  }
  if (hasParts) {
    (root.parts as Array<Record<string, unknown>>).forEach((p, i) => {
      for (const key of ['variants', 'sweep'] as const) {
        if (p[key] !== undefined) errors.push(`parts.${i}.${key} cannot be combined with tune (the search makes its own candidates)`);
      }
    });
  }
  return errors;
}

/** A dimension as the space holds it: `free` is spent in the expansion. */
function withoutFree(dimension: TuneDimension): TuneDimension {
  const { free: _free, ...rest } = dimension;
  return rest as TuneDimension;
}

/**
 * The dimensions of one key of `tune.space`: itself (a selector tied across every layer it matches),
 * or with `free: true` one dimension per matched layer, keyed by the concrete path in that layer;
 * null when the key cannot be expanded (the problem pushed to `errors`).
 */
function keyDimensions(key: string, dimension: TuneDimension, parts: TunePart[], hasParts: boolean, errors: string[]): SpaceDimension[] | null {
  const where = `tune.space.${key}`;
  const first = parts[0] as TunePart;
  if (dimension.free !== true) return [{ path: key, dimension: withoutFree(dimension), layers: dimensionLayers(first.scenario, key).map((l) => l.path.join('.')) }];
  if (!isLayerSelector(key)) {
    errors.push(`${where}.free needs a layer selector as the key (${SELECTOR_WORD}[<name>]...): ${JSON.stringify(key)} sets one place`);
    return null;
  }
  const matched: string[][] = [];
  for (const part of parts) {
    const resolved = resolvePathKey(part.scenario, key);
    if (!resolved.ok) {
      errors.push(`${where}: ${key} ${resolved.problem}${hasParts ? ` (part ${JSON.stringify(part.name)})` : ''}`);
      return null;
    }
    matched.push(resolved.paths.map((p) => p.join('.')));
  }
  const texts = matched.map((m) => m.join(', '));
  if (texts.some((t) => t !== texts[0])) {
    errors.push(`${where}.free needs the same layers in every part (${parts.map((p, i) => `part ${JSON.stringify(p.name)}: ${texts[i]}`).join('; ')})`);
    return null;
  }
  return (matched[0] as string[]).map((path) => ({ path, dimension: withoutFree(dimension), layers: dimensionLayers(first.scenario, path).map((l) => l.path.join('.')) }));
}

/**
 * The space's dimensions (a `free` selector expanded); every path must be one that the scenarios
 * accept (at one of its probes at least), and no two dimensions may set one path.
 */
function tuneSpace(tune: TuneSection, parts: TunePart[], hasParts: boolean, errors: string[]): SpaceDimension[] {
  const space: SpaceDimension[] = [];
  const keyOf = new Map<string, string>();
  for (const [key, dimension] of Object.entries(tune.space)) {
    const where = `tune.space.${key}`;
    let segments;
    try {
      segments = splitPath(key);
    } catch {
      errors.push(`${where} is not a valid path (empty segment)`);
      continue;
    }
    if (segments[0] === 'scenario') {
      errors.push(`${where}: paths are relative to the scenario (write ${JSON.stringify(segments.slice(1).join('.'))})`);
      continue;
    }
    const dimensions = keyDimensions(key, dimension, parts, hasParts, errors);
    if (dimensions === null) continue;
    for (const d of dimensions) {
      const other = keyOf.get(d.path);
      if (other !== undefined) {
        errors.push(`${where} sets ${d.path}, which tune.space.${other} sets too (one dimension per path)`);
        continue;
      }
      keyOf.set(d.path, key);
      const probes: unknown[] = dimension.kind === 'choice' ? dimension.values : [dimension.min, dimension.max];
      const results = probes.map((value) => resolveCandidate({ parts, hasParts }, () => ({ [d.path]: value })));
      const firstBad = results.find((r) => !r.ok);
      if (firstBad && !firstBad.ok && results.every((r) => !r.ok)) {
        for (const e of firstBad.errors) errors.push(`${where}: ${e}`);
      }
      space.push(d);
    }
  }
  return space;
}

/** The presets as contenders: a known preset on a layer that every part has. */
function tunePresets(tune: TuneSection, parts: TunePart[], hasParts: boolean, errors: string[]): PresetContender[] {
  const presets: PresetContender[] = [];
  tune.presets.forEach((group, i) => {
    for (const part of parts) {
      // By name, in every stack written in the scenario, as a layer selector matches it.
      const match = matchLayerSelector(part.scenario, { text: group.layer, scope: [], names: [group.layer], rest: [] });
      if (typeof match === 'string') {
        const at = hasParts ? `part ${JSON.stringify(part.name)}` : 'the scenario';
        errors.push(`tune.presets.${i}.layer must name a layer of ${at} (got ${JSON.stringify(group.layer)}; layers: ${writtenLayerNames(part.scenario).join(', ')})`);
        return;
      }
    }
    group.names.forEach((name, j) => {
      if (!isPresetName(name)) errors.push(`tune.presets.${i}.names.${j} must be a known preset (got ${JSON.stringify(name)}; known presets: ${PRESET_NAMES.join(', ')})`);
      else presets.push({ layer: group.layer, name });
    });
  });
  return presets;
}

/** The goal's metric, part and window checked (errors pushed); the parts it is read in, or null. */
type TargetCheck = (where: string, t: { metric: string; part?: string | undefined; window?: string | undefined }) => string[] | null;

/** The check of an objective's or a constraint's target: a known metric, part and window, naming only what the part's scenario has. */
function targetChecker(parts: TunePart[], hasParts: boolean, errors: string[]): TargetCheck {
  const partNames = parts.map((p) => p.name);
  const subjects = partSubjects(parts, hasParts);
  return (where, t) => {
    let ok = true;
    if (t.window !== undefined && !(WINDOW_METRICS as readonly string[]).includes(t.metric)) {
      // A window's measures are read as windows.<window>.<metric> (metricKey).
      errors.push(`${where}.metric must be one of ${WINDOW_METRICS.join(', ')} with a window (got ${JSON.stringify(t.metric)})`);
      ok = false;
    } else if (t.window === undefined && !isMetricName(t.metric)) {
      errors.push(`${where}.metric must be one of ${METRIC_NAMES_TEXT} (got ${JSON.stringify(t.metric)})`);
      ok = false;
    }
    if (t.part !== undefined && !partNames.includes(t.part)) {
      errors.push(`${where}.part must be one of ${partNames.join(', ')} (got ${JSON.stringify(t.part)})`);
      return null;
    }
    const inParts = t.part !== undefined ? [t.part] : partNames;
    // The services, edges, caches, windows... a metric's name refers to must be the scenario's.
    if (ok) {
      for (const name of inParts) {
        const has = subjects.get(name);
        if (has === undefined || has === null) continue;
        const missing = metricSubjects(t.metric)
          .map((subject) => missingSubject(subject, has))
          .find((m) => m !== null);
        if (missing) {
          const owner = hasParts ? `part ${JSON.stringify(name)}` : 'the scenario';
          errors.push(`${where}.metric must name ${missing.what} of ${owner} (got ${JSON.stringify(t.metric)}; ${missing.known})`);
          return null;
        }
      }
    }
    if (t.window !== undefined) {
      for (const name of inParts) {
        const windows = windowNames((parts.find((p) => p.name === name) as TunePart).scenario);
        if (!windows.includes(t.window)) {
          const owner = hasParts ? `part ${JSON.stringify(name)}` : 'the scenario';
          const has = windows.length > 0 ? `windows: ${windows.join(', ')}` : 'it has none';
          errors.push(`${where}.window must name a window of ${owner}'s metrics.windows (got ${JSON.stringify(t.window)}; ${has})`);
          return null;
        }
      }
    }
    return ok ? inParts : null;
  };
}

/** The objectives: each target checked, a tolerance where 1% of a mean is not a margin, and narrower than the metric's range. */
function tuneObjectives(tune: TuneSection, checkTarget: TargetCheck, hasParts: boolean, errors: string[]): Objective[] {
  const objectives: Objective[] = [];
  tune.objectives.forEach((o: TuneObjective, i) => {
    const where = `tune.objectives.${i}`;
    const inParts = checkTarget(where, o);
    if (inParts === null) return;
    if (o.tolerance === undefined && !POSITIVE_METRIC.test(o.metric)) {
      errors.push(`${where}.tolerance is required for ${o.metric} (it can be 0 or is a rate: equivalence needs an absolute margin)`);
      return;
    }
    const range = metricInfo(metricKey(o.metric, o.window ?? null)).range;
    const width = range.max - range.min;
    if (o.tolerance !== undefined && o.tolerance >= width) {
      errors.push(`${where}.tolerance must be < ${width}, the width of the range of ${o.metric} (${rangeRule(range)}), or every candidate is equivalent (got ${o.tolerance})`);
      return;
    }
    objectives.push({
      metric: o.metric,
      parts: inParts,
      window: o.window ?? null,
      goal: o.goal,
      tolerance: o.tolerance ?? null,
      label: targetLabel(o.metric, o.part, o.window, hasParts),
    });
  });
  return objectives;
}

/** The constraints, one per part they hold in, each bound within the metric's range. */
function tuneConstraints(tune: TuneSection, checkTarget: TargetCheck, hasParts: boolean, errors: string[]): Constraint[] {
  const constraints: Constraint[] = [];
  tune.constraints.forEach((c, i) => {
    const where = `tune.constraints.${i}`;
    const inParts = checkTarget(where, c);
    if (inParts === null) return;
    // A bound outside the metric's range can never hold (or always does): a mistake either way.
    const range = metricInfo(metricKey(c.metric, c.window ?? null)).range;
    let inRange = true;
    for (const [key, bound] of [['min', c.min], ['max', c.max]] as const) {
      if (bound !== undefined && (bound < range.min || bound > range.max)) {
        errors.push(`${where}.${key} must be ${rangeRule(range)}, the range of ${c.metric} (got ${bound})`);
        inRange = false;
      }
    }
    if (!inRange) return;
    for (const part of inParts) {
      const bound = [c.min !== undefined ? `>= ${c.min}` : null, c.max !== undefined ? `<= ${c.max}` : null].filter((x) => x !== null).join(' and ');
      constraints.push({
        metric: c.metric,
        parts: [part],
        window: c.window ?? null,
        min: c.min ?? null,
        max: c.max ?? null,
        label: `${targetLabel(c.metric, part, c.window, hasParts)} ${bound}`,
      });
    }
  });
  return constraints;
}

/**
 * Validates the `tune` section of an experiment root (already patched by quick mode and --set, and
 * otherwise valid) and gathers the problem: the parts, the space, the presets, the objectives and
 * constraints. Each problem is reported once, with its dotted path from the file's root: an empty
 * space, a path that no scenario accepts, a range with min > max, an unknown metric, part, window,
 * layer or preset, a metric naming a service, edge, cache, layer, window, workload, cluster or bin
 * width its part's scenario does not have (with those it has), a bound outside the metric's range
 * (`MetricInfo.range`) or a tolerance as wide as it, a missing tolerance, variants or a sweep beside `tune`.
 */
export function prepareTune(root: Record<string, unknown>, overrides: { candidates?: number; maxRuns?: number } = {}): PrepareTuneResult {
  if (root.tune === undefined) return { ok: false, errors: ['tune is required (the space, objectives and constraints to search)'] };
  const parsed = tuneSchema.safeParse(root.tune);
  if (!parsed.success) {
    // The experiment's own validation reports the structure with every path; only reached for direct callers.
    return { ok: false, errors: parsed.error.issues.map((i) => `tune.${i.path.join('.')} ${i.message}`) };
  }
  const tune: TuneSection = parsed.data;
  const hasParts = Array.isArray(root.parts);
  const errors: string[] = [];
  const texts = tuneTexts(root, errors);
  const parts = tuneParts(root, hasParts, texts);
  errors.push(...combinedProblems(root, hasParts));
  const space = tuneSpace(tune, parts, hasParts, errors);
  const presets = tunePresets(tune, parts, hasParts, errors);
  const checkTarget = targetChecker(parts, hasParts, errors);
  const objectives = tuneObjectives(tune, checkTarget, hasParts, errors);
  const constraints = tuneConstraints(tune, checkTarget, hasParts, errors);
  if (errors.length > 0) return { ok: false, errors: [...new Set(errors)] };
  return {
    ok: true,
    problem: {
      name: root.name as string,
      description: texts.description,
      seed: (root.seed as number) ?? 1,
      hasParts,
      parts,
      space,
      presets,
      objectives,
      constraints,
      candidates: overrides.candidates ?? tune.candidates,
      maxRuns: overrides.maxRuns ?? tune.maxRuns,
    },
  };
}
