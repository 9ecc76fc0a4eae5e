import { resolveDescriptions } from './descriptionText.js';
import type { Experiment } from './Experiment.js';
import { expandPart, type PartInput, type PlanPart, type StructurePart } from './expandPart.js';
import { experimentStructureSchema, type ExperimentStructure } from './experimentSchema.js';
import { formatPath, problemMessage, type PathSegment, type Problem } from './Problem.js';
import { zodProblems } from '../policy/schema/zodProblems.js';
import { blame, isObject, Messages, overlaps, PART_ONLY_FIELDS, patchRoot, type ExpandOptions, type JsonObject, type SelectorUse } from './patchRoot.js';

export { patchedRoot, PART_INHERITED_FIELDS, type ExpandOptions, type SelectorUse } from './patchRoot.js';
export { DEFAULT_VARIANT, PRECEDENCE, type Cell, type PlanPart } from './expandPart.js';


/** Everything a sweep runs: the parts of an experiment and their cells. */
export interface ExperimentPlan {
  name: string;
  description: string;
  seed: number;
  /** Each part with its cells, and the risk section its cells are estimated with (`PlanPart.risk`). */
  parts: PlanPart[];
}

/** A plan, with the warnings of its cells' scenarios (each once), or every problem found. */
export type ExpandResult =
  | {
      ok: true;
      plan: ExperimentPlan;
      warnings: string[];
      /** Each layer selector of the variants, sweeps and `--set`, with the layers it matched (`validate` prints the counts). */
      selectors: SelectorUse[];
    }
  | { ok: false; errors: string[] };

/** Name of the only part of an experiment without `parts`. */
export const MAIN_PART = 'main';

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
    for (const key of PART_ONLY_FIELDS) {
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

/** A part's risk section replaces the file's, whole (docs/risk.md, "Parts"); where it is written, for messages. */
function riskOf(own: ExperimentStructure['risk'], ownPath: string, root: ExperimentStructure['risk']): PartInput['risk'] {
  if (own !== undefined) return { section: own, path: ownPath };
  return root !== undefined ? { section: root, path: 'risk' } : undefined;
}

function partsOf(structure: ExperimentStructure): PartInput[] {
  if (structure.parts !== undefined) {
    return structure.parts.map((part, i) => ({
      part: part as StructurePart,
      replications: part.replications ?? structure.replications,
      location: ['parts', i],
      risk: riskOf(part.risk, `parts.${i}.risk`, structure.risk),
    }));
  }
  const main: StructurePart = {
    name: MAIN_PART,
    description: structure.description,
    scenario: structure.scenario ?? {},
    variants: structure.variants,
    sweep: structure.sweep,
  };
  return [{ part: main, replications: structure.replications, location: [], risk: riskOf(undefined, 'risk', structure.risk) }];
}

/**
 * Expands an experiment into the cells a sweep runs (docs/experiments.md, "Experiment files"). In order: the quick
 * patch (if `quick`; the file's, then each part's), the `--set` overrides (see
 * {@link ExpandOptions.set}), then for each cell the variant's overrides, the sweep point's values and the
 * `--set` overrides again on the part's scenario (PRECEDENCE), which is then validated and resolved.
 * Layer selectors (`layers[sdk].policy.budget`, layerSelector.ts) are resolved against the part's
 * scenario after quick mode and `--set`. Cells come in file order of parts; within a
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
  const { work, patches, sets, selectors } = patchRoot(root, options, messages);
  const parsed = experimentStructureSchema.safeParse(work, { reportInput: true });
  const problems = [...(parsed.success ? [] : zodProblems(parsed.error.issues)), ...rootProblems(work)];
  for (const problem of problems) {
    messages.add(`${blame([problem.path, ...(problem.related ?? [])], patches)}${problemMessage(problem)}`);
  }
  if (!parsed.success || messages.list.length > 0) {
    // Still look into the scenarios whose own fields are well formed, to report everything at once.
    const sinks = { messages, warnings: new Messages(), selectors: [] };
    for (const input of wellFormedParts(work, problems)) expandPart(input, patches, sets, sinks);
    return { ok: false, errors: messages.list };
  }
  const structure = parsed.data;
  const sinks = { messages, warnings: new Messages(), selectors };
  const parts = partsOf(structure).map((input) => expandPart(input, patches, sets, sinks));
  const texts = resolveDescriptions(work);
  if (!texts.ok) for (const p of texts.problems) messages.add(p);
  if (messages.list.length > 0 || !texts.ok) return { ok: false, errors: messages.list };
  if (structure.parts !== undefined) parts.forEach((part, i) => (part.description = texts.parts[i] ?? part.description));
  else for (const part of parts) part.description = texts.description;
  const plan: ExperimentPlan = { name: structure.name, description: texts.description, seed: structure.seed, parts };
  return { ok: true, plan, warnings: sinks.warnings.list, selectors };
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
