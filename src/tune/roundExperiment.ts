import { cloneJson } from '../experiment/index.js';
import type { Candidate } from './runTune.js';
import type { TuneProblem } from './tuneProblem.js';

/** The experiment name of round `index` of a search: `<experiment>-round-<index>`. */
export function roundName(experiment: string, index: number): string {
  return `${experiment}-round-${index}`;
}

/**
 * One round of a search as an experiment file (its root object): the tuned experiment's parts
 * (their scenarios as patched by quick mode and --set), each with one variant per live candidate,
 * at the round's replications, with the master seed. Replication seeds do not depend on the
 * variant, so every candidate sees the same random numbers; `retrystorm run` on this file (with
 * `--shard`, then `merge`) makes exactly the records the search makes.
 */
export function roundExperiment(problem: TuneProblem, live: readonly Candidate[], index: number, replications: number): Record<string, unknown> {
  const variantsOf = (part: string) => Object.fromEntries(live.map((c) => [c.id, cloneJson(c.overrides[part] ?? {})]));
  const head = {
    name: roundName(problem.name, index),
    description: `Round ${index} of the search of ${problem.name}: ${live.length} candidates at ${replications} replications.`,
    seed: problem.seed,
    replications,
  };
  if (!problem.hasParts) {
    const part = problem.parts[0] as TuneProblem['parts'][number];
    return { ...head, scenario: cloneJson(part.scenario), variants: variantsOf(part.name) };
  }
  return {
    ...head,
    parts: problem.parts.map((p) => ({ name: p.name, description: p.description, scenario: cloneJson(p.scenario), variants: variantsOf(p.name) })),
  };
}
