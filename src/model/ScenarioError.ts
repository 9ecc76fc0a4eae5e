/**
 * A scenario the model cannot run (e.g. a scripted leaf that hangs with nothing to bound the
 * wait). Carries one message per problem, each naming the field by its dotted path.
 */
export class ScenarioError extends Error {
  readonly problems: string[];

  constructor(problems: string[]) {
    super(problems.join('\n'));
    this.name = 'ScenarioError';
    this.problems = problems;
  }
}
