import type { Scenario } from '../model/scenario.js';
import { resolveDescriptions } from './descriptionText.js';
import { canonicalJson } from './canonicalJson.js';
import type { Experiment } from './Experiment.js';
import { experimentStructureSchema, type ExperimentStructure } from './experimentSchema.js';
import { formatPath, problemMessage, type PathSegment, type Problem } from './Problem.js';
import { resolveScenario } from './resolveScenario.js';
import { cloneJson, scenarioRelative, setPath, splitPath } from './setPath.js';
import { zodProblems } from '../policy/schema/zodProblems.js';
import { blame, isObject, isPrefix, Messages, overlaps, patchRoot, problemsOf, type ExpandOptions, type JsonObject, type Patch } from './patchRoot.js';

export { patchedRoot, type ExpandOptions } from './patchRoot.js';

/** One simulation of an experiment: a part, a variant and a sweep point, fully resolved. */
export interface Cell {
  /** The part's name, or `main` for an experiment without parts. */
  part: string;
  /** The variant's name, or `default` for a part without variants. */
  variant: string;
  /** The swept paths and their values in this cell (grid axes, then zip axes); {} without a sweep. */
  params: Record<string, unknown>;
  /** Canonical JSON (sorted keys) of { part, variant, params }: the cell's identity in results. */
  key: string;
  scenario: Scenario;
}

/** The cells of one part of an experiment. */
export interface PlanPart {
  name: string;
  description: string;
  replications: number;
  /** Variant names in file order (`default` without variants). */
  variants: string[];
  /** Sweep axes: grid axes in file order, then zip axes. */
  axes: string[];
  /** Sweep points in grid order (first axis slowest, zip axes after the grid), variants fastest. */
  cells: Cell[];
}

/** Everything a sweep runs: the parts of an experiment and their cells. */
export interface ExperimentPlan {
  name: string;
  description: string;
  seed: number;
  parts: PlanPart[];
}

/** A plan, with the warnings of its cells' scenarios (each once), or every problem found. */
export type ExpandResult = { ok: true; plan: ExperimentPlan; warnings: string[] } | { ok: false; errors: string[] };

/** Name of the only part of an experiment without `parts`. */
export const MAIN_PART = 'main';
/** Name of the only variant of a part without `variants`. */
export const DEFAULT_VARIANT = 'default';

/** One override of a cell's scenario: where it goes, its value, and where it is written in the file. */
interface Override {
  path: PathSegment[];
  key: string;
  value: unknown;
  /** Printed before messages it caused: `variants.none`, `sweep.grid.workload.clients`. */
  source: string;
  /** Where it is written, from the file's root. */
  location: PathSegment[];
}

/** Rules between top-level fields that the zod schema leaves to this module. */
function rootProblems(work: JsonObject): Problem[] {
  const problems: Problem[] = [];
  const hasScenario = work.scenario !== undefined;
  const hasParts = work.parts !== undefined;
  if (hasScenario && hasParts) {
    problems.push({ path: ['parts'], text: 'cannot be combined with scenario (an experiment has one scenario, or parts)' });
  } else if (!hasScenario && !hasParts) {
    problems.push({ path: ['scenario'], text: 'is required (or parts, for several scenarios)' });
  }
  if (hasParts) {
    for (const key of ['variants', 'sweep'] as const) {
      if (work[key] !== undefined) problems.push({ path: [key], text: `cannot be combined with parts (give each part its own ${key})` });
    }
  }
  const parts = work.parts;
  if (Array.isArray(parts)) {
    const firstIndex = new Map<string, number>();
    parts.forEach((part: unknown, i) => {
      if (!isObject(part) || typeof part.name !== 'string') return;
      const first = firstIndex.get(part.name);
      if (first === undefined) firstIndex.set(part.name, i);
      else problems.push({ path: ['parts', i, 'name'], text: `must be unique (got ${JSON.stringify(part.name)}, also parts.${first}.name)` });
    });
  }
  return problems;
}

type StructurePart = {
  name: string;
  description: string;
  scenario: JsonObject;
  variants?: Record<string, JsonObject> | undefined;
  sweep?: { grid?: Record<string, unknown[]> | undefined; zip?: Record<string, unknown[]> | undefined } | undefined;
  replications?: number | undefined;
};

/** A part to expand, with where its pieces are written in the file. */
interface PartInput {
  part: StructurePart;
  replications: number;
  /** `[]` for the top-level scenario, `['parts', i]` for a part. */
  location: PathSegment[];
}

function partsOf(structure: ExperimentStructure): PartInput[] {
  if (structure.parts !== undefined) {
    return structure.parts.map((part, i) => ({
      part: part as StructurePart,
      replications: part.replications ?? structure.replications,
      location: ['parts', i],
    }));
  }
  const main: StructurePart = {
    name: MAIN_PART,
    description: structure.description,
    scenario: structure.scenario ?? {},
    variants: structure.variants,
    sweep: structure.sweep,
  };
  return [{ part: main, replications: structure.replications, location: [] }];
}

/** Splits an override key (a dotted path relative to the scenario, `scenario.` accepted), or reports why it is not one. */
function overridePath(key: string, location: PathSegment[], messages: Messages, patchBlame: string): PathSegment[] | undefined {
  const where = formatPath(location);
  let path: PathSegment[];
  try {
    path = scenarioRelative(splitPath(key));
  } catch {
    messages.add(`${patchBlame}${where} is not a valid path (empty segment)`);
    return undefined;
  }
  if (path.length === 0) {
    messages.add(`${patchBlame}${where} names the whole scenario (give a path inside it, e.g. "workload.clients")`);
    return undefined;
  }
  return path;
}

interface Axis {
  key: string;
  path: PathSegment[];
  values: unknown[];
  source: string;
  location: PathSegment[];
  /** `sweep.grid` or `sweep.zip`, from the part. */
  group: string;
}

function describeCell(variant: string | undefined, params: ReadonlyArray<readonly [string, unknown]>): string {
  const pieces = variant === undefined ? [] : [`variant ${JSON.stringify(variant)}`];
  for (const [key, value] of params) pieces.push(`${key}=${canonicalJson(value)}`);
  return pieces.join(', ');
}

/** Expands one part into cells; adds problems to `messages`. */
function expandPart(input: PartInput, patches: readonly Patch[], messages: Messages, warnings: Messages = new Messages()): PlanPart {
  const { part, location } = input;
  const at = (...rest: PathSegment[]): PathSegment[] => [...location, ...rest];
  const scenarioPath = at('scenario');

  // Overrides of the variants, in file order.
  const variantEntries = Object.entries(part.variants ?? {});
  const variants = variantEntries.map(([name, overrides]) => {
    const list: Override[] = [];
    for (const [key, value] of Object.entries(overrides)) {
      const loc = at('variants', name, key);
      const path = overridePath(key, loc, messages, blame([loc], patches));
      if (path !== undefined) list.push({ path, key, value, source: formatPath(at('variants', name)), location: loc });
    }
    return { name, overrides: list };
  });

  // Sweep axes: grid axes, then zip axes.
  const axes: Axis[] = [];
  for (const group of ['grid', 'zip'] as const) {
    for (const [key, values] of Object.entries(part.sweep?.[group] ?? {})) {
      const loc = at('sweep', group, key);
      const path = overridePath(key, loc, messages, blame([loc], patches));
      if (path !== undefined) axes.push({ key, path, values, source: formatPath(loc), location: loc, group: formatPath(at('sweep', group)) });
    }
  }

  // A path may be set by one axis only, and never by both a variant and an axis.
  axes.forEach((axis, i) => {
    for (const other of axes.slice(0, i)) {
      if (!overlaps(axis.path, other.path)) continue;
      const what = axis.key === other.key ? 'is also a sweep axis' : `overlaps the sweep axis ${other.key}`;
      messages.add(`${blame([axis.location], patches)}${axis.source} ${what} (${other.group})`);
    }
  });
  for (const variant of variants) {
    for (const override of variant.overrides) {
      for (const axis of axes) {
        if (!overlaps(override.path, axis.path)) continue;
        const what = override.key === axis.key ? 'is also a sweep axis' : `overlaps the sweep axis ${axis.key}`;
        messages.add(`${blame([override.location, axis.location], patches)}${formatPath(override.location)} ${what} (${axis.group})`);
      }
    }
  }

  // Every value of an axis makes its own cells: a repeated value would repeat cells.
  const gridAxes = axes.filter((a) => a.location[a.location.length - 2] === 'grid');
  const zipAxes = axes.filter((a) => a.location[a.location.length - 2] === 'zip');
  for (const axis of gridAxes) {
    const seen = new Map<string, number>();
    axis.values.forEach((value, j) => {
      const text = canonicalJson(value);
      const first = seen.get(text);
      if (first === undefined) seen.set(text, j);
      else messages.add(`${blame([axis.location], patches)}${axis.source}.${j} repeats the value ${text} of ${axis.source}.${first}`);
    });
  }
  const zipLength = zipAxes[0]?.values.length ?? 0;
  if (zipAxes.every((a) => a.values.length === zipLength)) {
    const seen = new Map<string, number>();
    for (let j = 0; j < zipLength; j++) {
      const text = canonicalJson(zipAxes.map((a) => a.values[j]));
      const first = seen.get(text);
      if (first === undefined) seen.set(text, j);
      else messages.add(`${blame(zipAxes.map((a) => a.location), patches)}${formatPath(at('sweep', 'zip'))} repeats at position ${j} the values of position ${first}`);
    }
  }

  const variantNames = variants.length > 0 ? variants.map((v) => v.name) : [DEFAULT_VARIANT];
  const planPart: PlanPart = {
    name: part.name,
    description: part.description,
    replications: input.replications,
    variants: variantNames,
    axes: axes.map((a) => a.key),
    cells: [],
  };

  // Sweep points: the cartesian product of the grid axes (first axis slowest), then the zip axes.
  type Point = Array<{ axis: Axis; value: unknown }>;
  let points: Point[] = [[]];
  for (const axis of gridAxes) points = points.flatMap((p) => axis.values.map((value) => [...p, { axis, value }]));
  if (zipAxes.length > 0) {
    points = points.flatMap((p) => Array.from({ length: zipLength }, (_, j) => [...p, ...zipAxes.map((axis) => ({ axis, value: axis.values[j] }))]));
  }

  const cellVariants = variants.length > 0 ? variants : [{ name: DEFAULT_VARIANT, overrides: [] as Override[] }];
  const overridden = variants.length > 0 || axes.length > 0;
  const baseErrors = new Set(overridden ? (resolveScenarioErrors(part.scenario, scenarioPath)) : []);

  for (const point of points) {
    for (const variant of cellVariants) {
      const overrides: Override[] = [
        ...variant.overrides,
        ...point.map(({ axis, value }) => ({ path: axis.path, key: axis.key, value, source: axis.source, location: axis.location })),
      ];
      const scenarioInput = cloneJson(part.scenario);
      let applied = true;
      for (const override of overrides) {
        try {
          setPath(scenarioInput, override.path, override.value);
        } catch (e) {
          applied = false;
          for (const p of problemsOf(e)) messages.add(`${blame([override.location], patches)}${override.source}: ${p}`);
        }
      }
      if (!applied) continue;
      const result = resolveScenario(scenarioInput, scenarioPath);
      const params: Record<string, unknown> = {};
      for (const { axis, value } of point) params[axis.key] = cloneJson(value);
      if (!result.ok) {
        const cell = describeCell(variants.length > 0 ? variant.name : undefined, Object.entries(params));
        for (const problem of result.problems) messages.add(cellMessage(problem, overrides, scenarioPath, patches, baseErrors, cell));
        continue;
      }
      for (const w of result.warnings) warnings.add(w);
      planPart.cells.push({
        part: part.name,
        variant: variant.name,
        params,
        key: canonicalJson({ part: part.name, variant: variant.name, params }),
        scenario: result.scenario,
      });
    }
  }
  return planPart;
}

/** The override sets the `kind` or `dist` of an object at or above `path`: it chose the shape `path` must have. */
function setsShapeOf(overridePath: readonly PathSegment[], path: readonly PathSegment[]): boolean {
  const last = overridePath[overridePath.length - 1];
  return (last === 'kind' || last === 'dist') && isPrefix(overridePath.slice(0, -1), path);
}

function resolveScenarioErrors(input: unknown, prefix: PathSegment[]): string[] {
  const result = resolveScenario(input, prefix);
  return result.ok ? [] : result.errors;
}

/**
 * The message of a problem found in a cell's scenario: prefixed with the override that set its
 * path (or a related path), the last one applied; otherwise with its normal path, and naming the
 * cell when the scenario as written does not have that problem.
 */
function cellMessage(
  problem: Problem,
  overrides: readonly Override[],
  scenarioPath: PathSegment[],
  patches: readonly Patch[],
  baseErrors: ReadonlySet<string>,
  cell: string,
): string {
  const paths = [problem.path, ...(problem.related ?? [])];
  const text = problemMessage(problem, scenarioPath);
  for (let i = overrides.length - 1; i >= 0; i--) {
    const override = overrides[i] as Override;
    if (paths.some((p) => overlaps(p, override.path) || setsShapeOf(override.path, p))) {
      const patched = blame([override.location], patches);
      // `--set sweep.grid.x: sweep.grid.x: ...` says the same place twice.
      return patched === `--set ${override.source}: ` ? `${patched}${text}` : `${patched}${override.source}: ${text}`;
    }
  }
  const locations = paths.map((p) => [...scenarioPath, ...p]);
  const where = baseErrors.has(text) || cell === '' ? '' : ` (in cell ${cell})`;
  return `${blame(locations, patches)}${text}${where}`;
}

/**
 * Expands an experiment into the cells a sweep runs (README.md, "Experiment files"). In order: the quick
 * patch (if `quick`; the file's, then each part's), the `--set` overrides (see
 * {@link ExpandOptions.set}), then for each cell the variant's overrides and the sweep point's values on the part's
 * scenario, which is then validated and resolved. Cells come in file order of parts; within a
 * part, sweep points in grid order (first axis slowest, zip axes after the grid axes) times
 * variants in file order (variant fastest), so the variants of one sweep point sit side by side.
 * A path set by both a variant and a sweep axis is an error. Problems caused by an override are
 * prefixed with where it is written (`variants.none: scenario.stack.0...`, `sweep.grid.x: ...`,
 * `quick: ...`, `--set x: ...`); each message is reported once however many cells share it.
 */
export function expandExperiment(experiment: Pick<Experiment, 'root'>, options: ExpandOptions): ExpandResult {
  const messages = new Messages();
  const root: unknown = experiment.root;
  if (!isObject(root)) {
    return { ok: false, errors: [`${formatPath([])} must be a JSON object (got ${Array.isArray(root) ? 'an array' : JSON.stringify(root) ?? 'nothing'})`] };
  }
  const { work, patches } = patchRoot(root, options, messages);
  const parsed = experimentStructureSchema.safeParse(work, { reportInput: true });
  const problems = [...(parsed.success ? [] : zodProblems(parsed.error.issues)), ...rootProblems(work)];
  for (const problem of problems) {
    messages.add(`${blame([problem.path, ...(problem.related ?? [])], patches)}${problemMessage(problem)}`);
  }
  if (!parsed.success || messages.list.length > 0) {
    // Still look into the scenarios whose own fields are well formed, to report everything at once.
    for (const input of wellFormedParts(work, problems)) expandPart(input, patches, messages);
    return { ok: false, errors: messages.list };
  }
  const structure = parsed.data;
  const warnings = new Messages();
  const parts = partsOf(structure).map((input) => expandPart(input, patches, messages, warnings));
  const texts = resolveDescriptions(work);
  if (!texts.ok) for (const p of texts.problems) messages.add(p);
  if (messages.list.length > 0 || !texts.ok) return { ok: false, errors: messages.list };
  if (structure.parts !== undefined) parts.forEach((part, i) => (part.description = texts.parts[i] ?? part.description));
  else for (const part of parts) part.description = texts.description;
  return { ok: true, plan: { name: structure.name, description: texts.description, seed: structure.seed, parts }, warnings: warnings.list };
}

/** The parts of a root with structural problems whose scenario, variants and sweep have none. */
function wellFormedParts(work: JsonObject, problems: readonly Problem[]): PartInput[] {
  const clean = (location: PathSegment[]): boolean =>
    (['scenario', 'variants', 'sweep'] as const).every((key) => !problems.some((p) => overlaps(p.path, [...location, key])));
  const read = (source: JsonObject, name: string, location: PathSegment[]): PartInput => ({
    part: {
      name,
      description: '',
      scenario: source.scenario as JsonObject,
      variants: source.variants as StructurePart['variants'],
      sweep: source.sweep as StructurePart['sweep'],
    },
    replications: 1,
    location,
  });
  const parts = work.parts;
  if (Array.isArray(parts)) {
    return parts.flatMap((part: unknown, i) =>
      isObject(part) && isObject(part.scenario) && clean(['parts', i])
        ? [read(part, typeof part.name === 'string' ? part.name : `part${i}`, ['parts', i])]
        : [],
    );
  }
  return isObject(work.scenario) && clean([]) ? [read(work, MAIN_PART, [])] : [];
}
