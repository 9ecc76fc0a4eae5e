import type { PathSegment, Problem } from '../policy/schema/Problem.js';

export type { PathSegment, Problem };

/** Dotted form of a path (`scenario.stack.1.policy`); the empty path is the document itself. */
export function formatPath(path: readonly PathSegment[]): string {
  return path.length === 0 ? 'the experiment' : path.join('.');
}

/** The printed message of a problem: dotted path, a space, then the rule. */
export function problemMessage(problem: Problem, prefix: readonly PathSegment[] = []): string {
  return `${formatPath([...prefix, ...problem.path])} ${problem.text}`;
}
