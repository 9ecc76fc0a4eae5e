/**
 * An input was rejected. `problems` lists every problem found, one message each, each naming the
 * dotted path of the offending field from the file's root and the rule it breaks
 * (`scenario.workload.clients must be a positive integer (got 0)`).
 */
export class ValidationError extends Error {
  /** Every problem found, in the order they were found. */
  readonly problems: string[];

  constructor(problems: readonly string[]) {
    super(problems.length === 1 ? (problems[0] ?? '') : `${problems.length} problems:\n${problems.map((p) => `  ${p}`).join('\n')}`);
    this.name = 'ValidationError';
    this.problems = [...problems];
  }
}
