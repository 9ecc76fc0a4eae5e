/**
 * A telemetry file `retrystorm import-telemetry` cannot read. `problems` lists every problem found,
 * one message each, starting with the file and naming the line or field and the rule broken:
 * `metrics.prom:12: the value must be a number (got "abc")`,
 * `spans.json: resourceSpans.0.scopeSpans.0.spans.3.startTimeUnixNano must be ... (got ...)`.
 */
export class TelemetryInputError extends Error {
  /** Every problem found, in the order they were found. */
  readonly problems: string[];

  constructor(problems: readonly string[]) {
    super(problems.join('\n'));
    this.name = 'TelemetryInputError';
    this.problems = [...problems];
  }
}

/** The most problems of one telemetry file listed before the reader stops: a file of another kind would list thousands. */
export const MAX_FILE_PROBLEMS = 10;

/**
 * Collects a file's problems and throws them together: at most {@link MAX_FILE_PROBLEMS}, then the
 * reader stops (the count of the rest is not known, so the last message says the reading stopped).
 */
export class ProblemList {
  private readonly problems: string[] = [];
  constructor(private readonly file: string) {}

  /** Record a problem at `where` (a line `12` or a JSON path); throws once the list is full. */
  add(where: string, text: string): void {
    this.problems.push(`${this.file}${where === '' ? '' : where.startsWith(':') ? where : `: ${where}`} ${text}`.replace(/ {2,}/g, ' '));
    if (this.problems.length >= MAX_FILE_PROBLEMS) {
      throw new TelemetryInputError([...this.problems, `${this.file}: stopped after ${MAX_FILE_PROBLEMS} problems`]);
    }
  }

  /** Throw the problems found, if any. */
  done(): void {
    if (this.problems.length > 0) throw new TelemetryInputError(this.problems);
  }
}
