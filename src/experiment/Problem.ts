/** One segment of a path into a JSON document: an object key or an array index. */
export type PathSegment = string | number;

/**
 * One validation problem before it is printed: where (`path`, from the root of the document that
 * was validated), what (`text`, the rule and the offending value, e.g. `must be > 0 (got -5)`),
 * and which other fields took part in a rule between fields (`related`, e.g. `baseMs` for
 * `capMs must be >= baseMs`), so the problem can be blamed on whichever of them an override set.
 */
export interface Problem {
  path: PathSegment[];
  text: string;
  related?: PathSegment[][];
}

/** Dotted form of a path (`scenario.stack.1.policy`); the empty path is the document itself. */
export function formatPath(path: readonly PathSegment[]): string {
  return path.length === 0 ? 'the experiment' : path.join('.');
}

/** The printed message of a problem: dotted path, a space, then the rule. */
export function problemMessage(problem: Problem, prefix: readonly PathSegment[] = []): string {
  return `${formatPath([...prefix, ...problem.path])} ${problem.text}`;
}
