// What the command line writes to and its input errors: shared by every command.

/** Where the CLI writes: injected so tests can capture output. */
export interface CliIO {
  stdout(text: string): void;
  stderr(text: string): void;
  cwd: string;
  /** Whether stderr is a terminal (a progress bar) or not (plain periodic lines). */
  isTTY?: boolean;
  /** Install handlers for SIGINT/SIGTERM; returns a function that removes them. */
  onInterrupt?: (handler: () => void) => () => void;
  /** The machine's memory in bytes, which a run's estimated memory is checked against (default: os.totalmem()). */
  memoryBytes?: number;
}

/** An input problem: printed without a stack trace, exit code 2. */
export class UsageError extends Error {
  readonly problems: string[];
  constructor(problems: string[]) {
    super(problems.join('\n'));
    this.problems = problems;
  }
}
