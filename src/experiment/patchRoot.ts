// Quick mode and `--set` applied to a copy of an experiment file's root, with a record of what each
// patched, so that a problem at a patched place is blamed on the patch (`quick: `, `--set x: `).
import { experimentStructureSchema } from './experimentSchema.js';
import { resolvePathKey } from './layerSelector.js';
import { missingNamedEntry } from './namedEntries.js';
import type { PathSegment } from './Problem.js';
import { cloneJson, mergeValue, scenarioRelative, setPath, splitExperimentPath, splitPath } from './setPath.js';
import { ValidationError } from './ValidationError.js';

/** How to expand an experiment. */
export interface ExpandOptions {
  /** Deep-merge the file's `quick` patch (and each part's) before anything else. */
  quick: boolean;
  /**
   * `--set` overrides, applied after quick mode, in order: paths relative to the scenario as in
   * variants and sweeps (`scenario.` accepted, layer selectors too; every part's scenario in an
   * experiment with parts), `parts.<name>.` for one part, or a field of the file's root (`seed`,
   * `replications`...; `replications` sets every part's own too). They come last in `PRECEDENCE`:
   * a scenario path set here is applied again after each cell's variant and sweep point.
   */
  set?: ReadonlyArray<readonly [string, unknown]>;
}

/** A patch of the file's root (quick mode or --set) and how to name it in messages. */
export interface Patch {
  path: PathSegment[];
  source: string;
}

/** A `--set` override of a part's scenario, applied again last in each of its cells (PRECEDENCE). */
export interface SetOverride {
  /** The part's place: `[]` for the top-level scenario, `['parts', i]`. */
  part: PathSegment[];
  /** The concrete paths in the scenario (a selector's every match). */
  paths: PathSegment[][];
  key: string;
  value: unknown;
  /** `--set <path>`. */
  source: string;
  /** Where it lands from the file's root, for blame. */
  location: PathSegment[];
}

/** How many layers a layer selector matched, and where it is written (`variants.budgets`, `sweep.grid`, `--set`). */
export interface SelectorUse {
  where: string;
  key: string;
  /** The matched layers' paths in the scenario. */
  layers: string[];
}

/**
 * The root fields that a part takes from the root unless it gives its own: `--set` of one of them
 * sets every part's own as well, since `--set` comes after the part (PRECEDENCE); `--set` of a
 * path inside one (`risk.particles`) sets it in every part that has its own, and in the root's
 * when the root has one or no part has its own.
 */
export const PART_INHERITED_FIELDS: readonly string[] = ['replications', 'risk'];

/** The root fields that an experiment with parts cannot have: each part gives its own. */
export const PART_ONLY_FIELDS = ['variants', 'sweep'] as const satisfies readonly string[];

export type JsonObject = Record<string, unknown>;

export function isObject(value: unknown): value is JsonObject {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

export function isPrefix(a: readonly PathSegment[], b: readonly PathSegment[]): boolean {
  return a.length <= b.length && a.every((s, i) => String(s) === String(b[i]));
}

/** One path is the other or lies inside it. */
export function overlaps(a: readonly PathSegment[], b: readonly PathSegment[]): boolean {
  return a.length > 0 && b.length > 0 && (isPrefix(a, b) || isPrefix(b, a));
}

export function problemsOf(error: unknown): string[] {
  if (error instanceof ValidationError) return error.problems;
  throw error;
}

/** Leaf paths of a patch object: where a deep merge of it replaces values. */
function patchLeaves(patch: JsonObject, prefix: PathSegment[]): PathSegment[][] {
  const leaves: PathSegment[][] = [];
  for (const [key, value] of Object.entries(patch)) {
    if (isObject(value) && Object.keys(value).length > 0) leaves.push(...patchLeaves(value, [...prefix, key]));
    else leaves.push([...prefix, key]);
  }
  return leaves;
}

/** Collects messages in order, each once. */
export class Messages {
  readonly list: string[] = [];
  private readonly seen = new Set<string>();
  add(message: string): void {
    if (!this.seen.has(message)) {
      this.seen.add(message);
      this.list.push(message);
    }
  }
}

/** A root patched by quick mode and `--set`: what each patched, the scenario overrides of `--set` and the selectors they used. */
export interface PatchedRoot {
  work: JsonObject;
  patches: Patch[];
  sets: SetOverride[];
  selectors: SelectorUse[];
}

/** Applies quick mode to `work` (the file's `quick`, then each part's); records what it patched. */
function applyQuick(work: JsonObject, patches: Patch[], messages: Messages): void {
  const quick = work.quick;
  if (isObject(quick)) {
    try {
      mergeValue(work, quick);
      patches.push(...patchLeaves(quick, []).map((path) => ({ path, source: 'quick' })));
    } catch (e) {
      for (const p of problemsOf(e)) messages.add(`quick: ${p}`);
    }
  }
  const parts = work.parts;
  if (Array.isArray(parts)) {
    parts.forEach((part: unknown, i) => {
      if (!isObject(part) || !isObject(part.quick)) return;
      const source = `parts.${i}.quick`;
      try {
        mergeValue(part, part.quick);
        patches.push(...patchLeaves(part.quick, ['parts', i]).map((path) => ({ path, source })));
      } catch (e) {
        for (const p of problemsOf(e)) messages.add(`${source}: ${p}`);
      }
    });
  }
}

/** Applies quick mode and --set to a copy of the root; records what was patched, for blame, and the `--set` overrides of scenarios. */
export function patchRoot(root: JsonObject, options: ExpandOptions, messages: Messages): PatchedRoot {
  const work = cloneJson(root);
  const out: PatchedRoot = { work, patches: [], sets: [], selectors: [] };
  if (options.quick) applyQuick(work, out.patches, messages);
  for (const [path, value] of options.set ?? []) {
    const source = `--set ${path}`;
    try {
      for (const target of setTargets(work, path)) {
        if (target.scenario) {
          const where = target.part !== null ? `part ${target.part}: ` : '';
          try {
            setOnScenario(target, target.scenario, value, source, out);
          } catch (e) {
            for (const p of problemsOf(e)) messages.add(`${source}: ${where}${p}`);
          }
          continue;
        }
        setPath(work, target.path, value);
        out.patches.push({ path: target.path, source });
      }
    } catch (e) {
      for (const p of problemsOf(e)) messages.add(`${source}: ${p}`);
    }
  }
  return out;
}

/**
 * Sets a `--set` value on a part's scenario itself, as variants and sweep axes are, so a path gives
 * the same messages everywhere (a selector at each layer it matches); records it for blame and to be
 * applied again after each cell's variant and sweep point. Throws a ValidationError.
 */
function setOnScenario(target: SetTarget, scenario: JsonObject, value: unknown, source: string, out: PatchedRoot): void {
  const key = target.relative.join('.');
  const resolved = resolvePathKey(scenario, key);
  if (!resolved.ok) throw new ValidationError([`${key} ${resolved.problem}`]);
  for (const relative of resolved.paths) {
    const missing = missingNamedEntry(scenario, relative);
    if (missing !== null) throw new ValidationError([`cannot set ${relative.join('.')}: ${missing}`]);
  }
  for (const relative of resolved.paths) setPath(scenario, relative, value);
  const locations = resolved.paths.map((relative) => [...target.at, 'scenario', ...relative]);
  for (const path of locations) out.patches.push({ path, source });
  out.sets.push({ part: target.at, paths: resolved.paths, key, value, source, location: locations[0] ?? target.path });
  if (resolved.selector !== null) out.selectors.push({ where: target.part !== null ? `--set, part ${target.part}` : '--set', key, layers: resolved.layers });
}

/**
 * The file's root after quick mode and the `--set` overrides, as `expandExperiment` sees it before
 * expanding cells (a copy; a patch that fails is skipped: `expandExperiment` reports it).
 */
export function patchedRoot(root: Readonly<Record<string, unknown>>, options: ExpandOptions): Record<string, unknown> {
  return patchRoot(root as JsonObject, options, new Messages()).work;
}

/** `quick: ` or `--set x: ` when a problem's location was patched by one of them (the last that did). */
export function blame(locations: readonly PathSegment[][], patches: readonly Patch[]): string {
  for (let i = patches.length - 1; i >= 0; i--) {
    const patch = patches[i] as Patch;
    if (locations.some((loc) => overlaps(loc, patch.path))) return `${patch.source}: `;
  }
  return '';
}

/** The fields of an experiment file's root and of a part (from the schema, so the two never disagree). */
const ROOT_FIELDS: readonly string[] = Object.keys(experimentStructureSchema.shape);
const PART_FIELDS: readonly string[] = Object.keys(experimentStructureSchema.shape.parts.unwrap().element.shape);

/** Where one `--set` path goes. */
interface SetTarget {
  /** From the file's root (for blame and for root fields). */
  path: PathSegment[];
  /** The scenario object a scenario path is set on (null for a root or part field). */
  scenario: JsonObject | null;
  /** The path inside `scenario`. */
  relative: PathSegment[];
  /** The part's name when the experiment has parts (for messages). */
  part: string | null;
  /** The place of the part whose scenario or field it sets: `[]` for the root, `['parts', i]`. */
  at: PathSegment[];
}

/**
 * Where a `--set` path goes. Paths are those of variants and sweep axes, relative to the scenario
 * (`workload.clients`; a `scenario.` prefix means the same), applied to every part's scenario in an
 * experiment with parts; `parts.<name>.` (or `parts.<index>.`) addresses one part, its own fields
 * (`parts.spike.replications`) or its scenario; a first segment that names a field of the file's
 * root sets that field (`seed`, `replications`, `sweep.grid.workload.clients`, `variants.x.stack.0.name`).
 */
function setTargets(work: JsonObject, path: string): SetTarget[] {
  const segments = splitPath(path);
  const head = segments[0] as PathSegment;
  const scenarioTarget = (holder: JsonObject, at: PathSegment[], relative: PathSegment[], part: string | null): SetTarget => {
    if (relative.length === 0) return { path: [...at, 'scenario'], scenario: null, relative, part, at };
    const sc = holder.scenario;
    return { path: [...at, 'scenario', ...relative], scenario: isObject(sc) ? sc : null, relative, part, at };
  };
  const rootOrScenario = (holder: JsonObject, at: PathSegment[], rest: PathSegment[], fields: readonly string[], part: string | null): SetTarget => {
    const first = rest[0];
    if (first === 'scenario') return scenarioTarget(holder, at, rest.slice(1), part);
    if (typeof first === 'string' && fields.includes(first)) {
      return { path: [...at, ...splitExperimentPath(rest.join('.'))], scenario: null, relative: [], part, at };
    }
    return scenarioTarget(holder, at, rest, part);
  };
  if (head === 'parts' && segments.length > 2) {
    const parts = Array.isArray(work.parts) ? (work.parts as unknown[]) : [];
    const ref = segments[1] as PathSegment;
    const names = parts.map((p) => (isObject(p) && typeof p.name === 'string' ? p.name : ''));
    const index = typeof ref === 'number' ? ref : names.indexOf(ref);
    const part = parts[index];
    if (!isObject(part)) {
      const known = names.filter((n) => n !== '');
      throw new ValidationError([
        `cannot set ${path}: there is no part ${JSON.stringify(ref)} (${known.length > 0 ? `parts: ${known.join(', ')}` : 'the experiment has no parts'})`,
      ]);
    }
    return [rootOrScenario(part, ['parts', index], segments.slice(2), PART_FIELDS, names[index] ?? null)];
  }
  if (typeof head === 'string' && head !== 'scenario' && ROOT_FIELDS.includes(head)) {
    const root: SetTarget = { path: splitExperimentPath(path), scenario: null, relative: [], part: null, at: [] };
    if (!Array.isArray(work.parts)) return [root];
    if (PART_INHERITED_FIELDS.includes(head)) {
      // The root's value is every part's default, and --set comes after a part's own (PRECEDENCE).
      const whole = segments.length === 1;
      const own = work.parts.flatMap((p: unknown, i) =>
        isObject(p) && (whole || p[head] !== undefined) ? [{ ...root, path: ['parts', i, ...root.path], part: typeof p.name === 'string' ? p.name : String(i), at: ['parts', i] }] : [],
      );
      return whole || work[head] !== undefined || own.length === 0 ? [root, ...own] : own;
    }
    if ((PART_ONLY_FIELDS as readonly string[]).includes(head)) {
      throw new ValidationError([`cannot set ${path}: the experiment has parts, and ${head} is a field of each part (write parts.<name>.${path})`]);
    }
    return [root];
  }
  const relative = scenarioRelative(segments);
  if (Array.isArray(work.parts) && work.scenario === undefined) {
    return work.parts.flatMap((p: unknown, i) =>
      isObject(p) ? [scenarioTarget(p, ['parts', i], relative, typeof p.name === 'string' ? p.name : String(i))] : [],
    );
  }
  return [scenarioTarget(work, [], relative, null)];
}
