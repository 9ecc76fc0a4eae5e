// One part of an experiment expanded into its cells: its variants' overrides and its sweep axes read
// (layer selectors resolved), checked against each other, combined into sweep points, and each cell's
// scenario built and resolved. expandExperiment.ts reads the file and calls expandPart per part.
import type { Scenario } from '../model/scenario.js';
import type { RiskSection } from './riskSchema.js';
import { canonicalJson } from './canonicalJson.js';
import { resolvePathKey } from './layerSelector.js';
import { formatPath, problemMessage, type PathSegment, type Problem } from './Problem.js';
import { resolveScenario } from './resolveScenario.js';
import { cloneJson, setPath } from './setPath.js';
import { blame, isPrefix, Messages, overlaps, problemsOf, type JsonObject, type Patch, type SelectorUse, type SetOverride } from './patchRoot.js';

/**
 * Where a cell's settings come from, each level overriding the ones before it (docs/experiments.md, "Experiment
 * files", "Precedence"): the file's root (`replications`, the scenario of a file without parts,
 * quick mode merged in first), then the part's own fields (its `replications`, its scenario), the
 * variant's overrides, the sweep point's values (a variant and a sweep axis may not set one path:
 * an error), and last `--set` (a root field a part inherits, `PART_INHERITED_FIELDS`, is set on
 * every part too; a scenario path is applied again after the variant and the sweep point).
 */
export const PRECEDENCE = ['file', 'part', 'variant', 'sweep', 'set'] as const;

/** The levels of PRECEDENCE that each cell applies as overrides of its part's scenario. */
type CellLevel = Extract<(typeof PRECEDENCE)[number], 'variant' | 'sweep' | 'set'>;

/** Name of the only variant of a part without `variants`. */
export const DEFAULT_VARIANT = 'default';

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
  /**
   * The `risk` section `retrystorm risk` estimates this part's cells with (quick mode and `--set`
   * applied): the part's own, else the file's; absent when neither has one.
   */
  risk?: RiskSection;
  /** Where that section is written, from the file's root (`risk`, `parts.1.risk`), for messages. */
  riskPath?: string;
}

/** A part as the file's structure gives it. */
export type StructurePart = {
  name: string;
  description: string;
  scenario: JsonObject;
  variants?: Record<string, JsonObject> | undefined;
  sweep?: { grid?: Record<string, unknown[]> | undefined; zip?: Record<string, unknown[]> | undefined } | undefined;
  replications?: number | undefined;
};

/** A part to expand, with where its pieces are written in the file. */
export interface PartInput {
  part: StructurePart;
  replications: number;
  /** `[]` for the top-level scenario, `['parts', i]` for a part. */
  location: PathSegment[];
  /** The risk section of its cells and where it is written (the part's own, else the file's). */
  risk?: { section: RiskSection; path: string } | undefined;
}

/** What expanding a part reports to: its problems, its scenarios' warnings and the layers each selector matched. */
export interface PartSinks {
  messages: Messages;
  warnings: Messages;
  selectors: SelectorUse[];
}

/** One override of a cell's scenario: where it goes (a selector's every match), its value, and where it is written in the file. */
interface Override {
  paths: PathSegment[][];
  key: string;
  value: unknown;
  /** Printed before messages it caused: `variants.none`, `sweep.grid.workload.clients`, `--set x`. */
  source: string;
  /** Where it is written, from the file's root. */
  location: PathSegment[];
}

interface Axis {
  key: string;
  paths: PathSegment[][];
  values: unknown[];
  source: string;
  location: PathSegment[];
  /** `sweep.grid` or `sweep.zip`, from the part. */
  group: string;
}

interface Variant {
  name: string;
  overrides: Override[];
}

type Point = Array<{ axis: Axis; value: unknown }>;

/** What the steps of one part's expansion share. */
interface PartContext {
  input: PartInput;
  patches: readonly Patch[];
  sinks: PartSinks;
  at: (...rest: PathSegment[]) => PathSegment[];
}

/**
 * The concrete paths of an override key (a dotted path relative to the scenario, `scenario.`
 * accepted, or a layer selector resolved against the part's scenario), or undefined after reporting
 * why it is not one.
 */
function overridePaths(ctx: PartContext, key: string, location: PathSegment[], group: string): PathSegment[][] | undefined {
  const where = formatPath(location);
  const patchBlame = blame([location], ctx.patches);
  const resolved = resolvePathKey(ctx.input.part.scenario, key);
  if (!resolved.ok) {
    ctx.sinks.messages.add(`${patchBlame}${where} ${resolved.problem}`);
    return undefined;
  }
  if (resolved.paths.some((p) => p.length === 0)) {
    ctx.sinks.messages.add(`${patchBlame}${where} names the whole scenario (give a path inside it, e.g. "workload.clients")`);
    return undefined;
  }
  if (resolved.selector !== null) ctx.sinks.selectors.push({ where: group, key, layers: resolved.layers });
  return resolved.paths;
}

/** The variants' overrides, in file order. */
function readVariants(ctx: PartContext): Variant[] {
  return Object.entries(ctx.input.part.variants ?? {}).map(([name, overrides]) => {
    const list: Override[] = [];
    for (const [key, value] of Object.entries(overrides)) {
      const loc = ctx.at('variants', name, key);
      const source = formatPath(ctx.at('variants', name));
      const paths = overridePaths(ctx, key, loc, source);
      if (paths !== undefined) list.push({ paths, key, value, source, location: loc });
    }
    return { name, overrides: list };
  });
}

/** The sweep axes: grid axes, then zip axes. */
function readAxes(ctx: PartContext): Axis[] {
  const axes: Axis[] = [];
  for (const group of ['grid', 'zip'] as const) {
    for (const [key, values] of Object.entries(ctx.input.part.sweep?.[group] ?? {})) {
      const loc = ctx.at('sweep', group, key);
      const groupPath = formatPath(ctx.at('sweep', group));
      const paths = overridePaths(ctx, key, loc, groupPath);
      if (paths !== undefined) axes.push({ key, paths, values, source: formatPath(loc), location: loc, group: groupPath });
    }
  }
  return axes;
}

function anyOverlap(a: readonly PathSegment[][], b: readonly PathSegment[][]): boolean {
  return a.some((p) => b.some((q) => overlaps(p, q)));
}

/** A path may be set by one axis only, and never by both a variant and an axis (whichever way each is written). */
function checkOverlaps(ctx: PartContext, variants: readonly Variant[], axes: readonly Axis[]): void {
  const { messages } = ctx.sinks;
  axes.forEach((axis, i) => {
    for (const other of axes.slice(0, i)) {
      if (!anyOverlap(axis.paths, other.paths)) continue;
      const what = axis.key === other.key ? 'is also a sweep axis' : `overlaps the sweep axis ${other.key}`;
      messages.add(`${blame([axis.location], ctx.patches)}${axis.source} ${what} (${other.group})`);
    }
  });
  for (const variant of variants) {
    for (const override of variant.overrides) {
      for (const axis of axes) {
        if (!anyOverlap(override.paths, axis.paths)) continue;
        const what = override.key === axis.key ? 'is also a sweep axis' : `overlaps the sweep axis ${axis.key}`;
        messages.add(`${blame([override.location, axis.location], ctx.patches)}${formatPath(override.location)} ${what} (${axis.group})`);
      }
    }
  }
}

/** Every value of an axis makes its own cells: a repeated value (or zip position) would repeat cells. */
function checkRepeats(ctx: PartContext, gridAxes: readonly Axis[], zipAxes: readonly Axis[]): void {
  const { messages } = ctx.sinks;
  for (const axis of gridAxes) {
    const seen = new Map<string, number>();
    axis.values.forEach((value, j) => {
      const text = canonicalJson(value);
      const first = seen.get(text);
      if (first === undefined) seen.set(text, j);
      else messages.add(`${blame([axis.location], ctx.patches)}${axis.source}.${j} repeats the value ${text} of ${axis.source}.${first}`);
    });
  }
  const zipLength = zipAxes[0]?.values.length ?? 0;
  if (!zipAxes.every((a) => a.values.length === zipLength)) return;
  const seen = new Map<string, number>();
  for (let j = 0; j < zipLength; j++) {
    const text = canonicalJson(zipAxes.map((a) => a.values[j]));
    const first = seen.get(text);
    if (first === undefined) seen.set(text, j);
    else messages.add(`${blame(zipAxes.map((a) => a.location), ctx.patches)}${formatPath(ctx.at('sweep', 'zip'))} repeats at position ${j} the values of position ${first}`);
  }
}

/** Sweep points: the cartesian product of the grid axes (first axis slowest), then the zip axes moving together. */
function sweepPoints(gridAxes: readonly Axis[], zipAxes: readonly Axis[]): Point[] {
  let points: Point[] = [[]];
  for (const axis of gridAxes) points = points.flatMap((p) => axis.values.map((value) => [...p, { axis, value }]));
  const zipLength = zipAxes[0]?.values.length ?? 0;
  if (zipAxes.length > 0) {
    points = points.flatMap((p) => Array.from({ length: zipLength }, (_, j) => [...p, ...zipAxes.map((axis) => ({ axis, value: axis.values[j] }))]));
  }
  return points;
}

/** The `--set` overrides of this part's scenario, applied again last in every cell so that they win (PRECEDENCE). */
function setOverrides(ctx: PartContext, sets: readonly SetOverride[]): Override[] {
  const at = ctx.input.location;
  const here = sets.filter((s) => s.part.length === at.length && isPrefix(s.part, at));
  return here.map((s) => ({ paths: s.paths, key: s.key, value: s.value, source: s.source, location: s.location }));
}

function describeCell(variant: string | undefined, params: ReadonlyArray<readonly [string, unknown]>): string {
  const pieces = variant === undefined ? [] : [`variant ${JSON.stringify(variant)}`];
  for (const [key, value] of params) pieces.push(`${key}=${canonicalJson(value)}`);
  return pieces.join(', ');
}

/** What every cell of a part shares: its variants, the later overrides and the problems of the scenario as written. */
interface CellFrame {
  hasVariants: boolean;
  sets: readonly Override[];
  baseErrors: ReadonlySet<string>;
}

/** One cell: the overrides applied in order (variant, sweep point, then `--set`) and its scenario resolved; null after reporting its problems. */
function buildCell(ctx: PartContext, frame: CellFrame, variant: Variant, point: Point): Cell | null {
  const { part } = ctx.input;
  const { messages } = ctx.sinks;
  const byLevel: Record<CellLevel, readonly Override[]> = {
    variant: variant.overrides,
    sweep: point.map(({ axis, value }) => ({ paths: axis.paths, key: axis.key, value, source: axis.source, location: axis.location })),
    set: frame.sets,
  };
  const overrides = PRECEDENCE.flatMap((level) => (level in byLevel ? byLevel[level as CellLevel] : []));
  const scenarioInput = cloneJson(part.scenario);
  let applied = true;
  for (const override of overrides) {
    try {
      for (const path of override.paths) setPath(scenarioInput, path, override.value);
    } catch (e) {
      applied = false;
      for (const p of problemsOf(e)) messages.add(`${blame([override.location], ctx.patches)}${override.source}: ${p}`);
    }
  }
  if (!applied) return null;
  const scenarioPath = ctx.at('scenario');
  const result = resolveScenario(scenarioInput, scenarioPath);
  const params: Record<string, unknown> = {};
  for (const { axis, value } of point) params[axis.key] = cloneJson(value);
  if (!result.ok) {
    const cell = describeCell(frame.hasVariants ? variant.name : undefined, Object.entries(params));
    for (const problem of result.problems) messages.add(cellMessage(problem, overrides, scenarioPath, ctx.patches, frame.baseErrors, cell));
    return null;
  }
  for (const w of result.warnings) ctx.sinks.warnings.add(w);
  return { part: part.name, variant: variant.name, params, key: canonicalJson({ part: part.name, variant: variant.name, params }), scenario: result.scenario };
}

/** Expands one part into cells; reports problems, warnings and selector matches to `sinks`. */
export function expandPart(input: PartInput, patches: readonly Patch[], sets: readonly SetOverride[], sinks: PartSinks): PlanPart {
  const { part, location } = input;
  const ctx: PartContext = { input, patches, sinks, at: (...rest) => [...location, ...rest] };
  const variants = readVariants(ctx);
  const axes = readAxes(ctx);
  checkOverlaps(ctx, variants, axes);
  const gridAxes = axes.filter((a) => a.location[a.location.length - 2] === 'grid');
  const zipAxes = axes.filter((a) => a.location[a.location.length - 2] === 'zip');
  checkRepeats(ctx, gridAxes, zipAxes);
  const planPart: PlanPart = {
    name: part.name,
    description: part.description,
    replications: input.replications,
    variants: variants.length > 0 ? variants.map((v) => v.name) : [DEFAULT_VARIANT],
    axes: axes.map((a) => a.key),
    cells: [],
    ...(input.risk ? { risk: input.risk.section, riskPath: input.risk.path } : {}),
  };
  const overridden = variants.length > 0 || axes.length > 0;
  const partSets = setOverrides(ctx, sets);
  for (const set of partSets) {
    for (const axis of axes.filter((a) => anyOverlap(a.paths, set.paths))) {
      sinks.warnings.add(`${set.source} overrides the sweep axis ${axis.source} in every cell (--set comes last), so its cells differ only in their names`);
    }
  }
  const frame: CellFrame = {
    hasVariants: variants.length > 0,
    sets: partSets,
    baseErrors: new Set(overridden ? resolveScenarioErrors(part.scenario, ctx.at('scenario')) : []),
  };
  const cellVariants = variants.length > 0 ? variants : [{ name: DEFAULT_VARIANT, overrides: [] }];
  for (const point of sweepPoints(gridAxes, zipAxes)) {
    for (const variant of cellVariants) {
      const cell = buildCell(ctx, frame, variant, point);
      if (cell !== null) planPart.cells.push(cell);
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
    if (paths.some((p) => override.paths.some((o) => overlaps(p, o) || setsShapeOf(o, p)))) {
      const patched = blame([override.location], patches);
      // `--set sweep.grid.x: sweep.grid.x: ...` (or `--set x: --set x: ...`) says the same place twice.
      return patched === `--set ${override.source}: ` || patched === `${override.source}: ` ? `${patched}${text}` : `${patched}${override.source}: ${text}`;
    }
  }
  const locations = paths.map((p) => [...scenarioPath, ...p]);
  const where = baseErrors.has(text) || cell === '' ? '' : ` (in cell ${cell})`;
  return `${blame(locations, patches)}${text}${where}`;
}
