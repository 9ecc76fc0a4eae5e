import { graphEventKindsProblem } from '../model/graph/graphEventKinds.js';
import { needsGraphRuntime } from '../model/graph/GraphRun.js';
import { unreachableServices } from '../model/graph/ServiceGraph.js';
import type { Scenario } from '../model/scenario.js';
import type { PathSegment, Problem } from './Problem.js';
import { formatPath, problemMessage } from './Problem.js';
import { listSome } from './listSome.js';
import { formatCount } from '../policy/groupThousands.js';
import { resolveInterventions, type ScenarioParse } from './interventionSchema.js';
import { scenarioSchema } from './scenarioSchema.js';
import { ValidationError } from './ValidationError.js';
import { zodProblems } from '../policy/schema/zodProblems.js';

/** A scenario resolved with every default filled in, or every problem found in it. */
export type ResolveScenarioResult =
  | {
      ok: true;
      scenario: Scenario;
      /** Things that are allowed but likely mistakes (a service nothing calls), paths from `prefix`. */
      warnings: string[];
    }
  | {
      ok: false;
      /** Problems with paths relative to the scenario. */
      problems: Problem[];
      /** The printed messages, paths from `prefix`, without repeats. */
      errors: string[];
    };

/**
 * Validates a scenario as written in an experiment file and fills in every default
 * (`scenarioSchema`). Messages name paths from `prefix` (`scenario` by default):
 * `scenario.workload.clients must be a positive integer (got 0)`.
 */
export function resolveScenario(input: unknown, prefix: readonly PathSegment[] = ['scenario']): ResolveScenarioResult {
  const result = parseOnce(input);
  let problems: Problem[];
  if (result.ok) {
    const resolved = resolveInterventions(input as Record<string, unknown>, result.scenario, parseOnce);
    const scenario = resolved.interventions === undefined ? result.scenario : { ...result.scenario, interventions: resolved.interventions };
    problems = resolved.problems.length > 0 ? resolved.problems : runProblems(scenario);
    if (problems.length === 0) return { ok: true, scenario, warnings: scenarioWarnings(scenario, prefix) };
  } else problems = result.problems;
  const errors = [...new Set(problems.map((p) => problemMessage(p, prefix)))];
  return { ok: false, problems, errors };
}

/** The scenario schema's parse of a scenario, its interventions as written left unresolved. */
function parseOnce(input: unknown): ScenarioParse {
  const result = scenarioSchema.safeParse(input, { reportInput: true });
  return result.success ? { ok: true, scenario: result.data } : { ok: false, problems: zodProblems(result.error.issues) };
}

/** What keeps a valid scenario from running: a service graph that needs more event kinds than a run has. */
function runProblems(scenario: Scenario): Problem[] {
  if (scenario.graph === undefined || !needsGraphRuntime(scenario)) return [];
  const text = graphEventKindsProblem(scenario.graph);
  return text === null ? [] : [{ path: ['services'], text }];
}

/**
 * The warnings of a valid scenario: the services of its graph that no entry reaches, one line
 * however many (`listSome`: the first few named, then how many more).
 */
function scenarioWarnings(scenario: Scenario, prefix: readonly PathSegment[]): string[] {
  if (scenario.graph === undefined) return [];
  const unreached = unreachableServices(scenario.graph);
  if (unreached.length === 0) return [];
  if (unreached.length === 1) {
    return [problemMessage({ path: ['services', unreached[0] as string], text: 'is never called (no entry reaches it, directly or through calls)' }, prefix)];
  }
  const where = formatPath([...prefix, 'services']);
  return [`${where}: ${formatCount(unreached.length)} services are never called (no entry reaches them, directly or through calls): ${listSome(unreached)}`];
}

/**
 * `resolveScenario` for callers that prefer throwing (the library API, `trace`): the resolved
 * scenario, or a ValidationError listing every problem.
 */
export function parseScenario(input: unknown, prefix: readonly PathSegment[] = ['scenario']): Scenario {
  const result = resolveScenario(input, prefix);
  if (!result.ok) throw new ValidationError(result.errors);
  return result.scenario;
}
