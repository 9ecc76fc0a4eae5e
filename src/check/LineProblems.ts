import { describeValue, MAX_QUOTED_LINES } from '../policy/schema/describeValue.js';
import { CheckInputError } from './CheckInputError.js';

/**
 * The problems of a file read line by line (an INI file, `.properties`, `KEY=value` lines): a line
 * that is not what the format allows is quoted (describeValue: a short, escaped excerpt of that
 * line) for the first {@link MAX_QUOTED_LINES} such lines, and the others are counted in one
 * last problem, so that a file that is not of the format (a system file named as an AWS config)
 * is never printed into the messages.
 */
export class LineProblems {
  private readonly problems: string[] = [];
  private quoted = 0;
  private unquoted = 0;

  constructor(private readonly source: string) {}

  /** Line `line` (1-based) breaks `rule`; `text` is what it says: `<source>: line 3 <rule> (got "<excerpt>")`. */
  bad(line: number, rule: string, text: string): void {
    if (this.quoted >= MAX_QUOTED_LINES) {
      this.unquoted++;
      return;
    }
    this.quoted++;
    this.problems.push(`${this.source}: line ${line} ${rule} (got ${describeValue(text)})`);
  }

  /** Throw every problem recorded (nothing when there is none), the lines not quoted counted last. */
  throwIfAny(): void {
    if (this.unquoted > 0) {
      this.problems.push(`${this.source}: ${this.unquoted} more line${this.unquoted > 1 ? 's' : ''} like these (not quoted: at most ${MAX_QUOTED_LINES} are); is this file of the format it was read as?`);
    }
    if (this.problems.length > 0) throw new CheckInputError(this.problems);
  }
}
