/**
 * A stack or configuration file `retrystorm check` cannot read. `problems` lists every problem
 * found, one message each, each starting with the file it is in and naming the field:
 * `envoy-route.yaml: retry_policy.num_retries must be a non-negative integer (got "three")`.
 */
export class CheckInputError extends Error {
  /** Every problem found, in the order they were found. */
  readonly problems: string[];

  constructor(problems: readonly string[]) {
    super(problems.length === 1 ? (problems[0] ?? '') : `${problems.length} problems:\n${problems.map((p) => `  ${p}`).join('\n')}`);
    this.name = 'CheckInputError';
    this.problems = [...problems];
  }
}
