import { describeName, describeValue, MAX_QUOTED_VALUES } from '../policy/schema/describeValue.js';
import { nearestName } from '../policy/schema/nearestName.js';
import { CheckInputError } from './CheckInputError.js';

/** One segment of a path into a document: an object key or an array index. */
export type Segment = string | number;

/** A JSON object as read from a document. */
export type JsonObject = Record<string, unknown>;

/** Whether a value is a plain object (not null, not an array). */
export function isObject(value: unknown): value is JsonObject {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/**
 * A protobuf JSON duration: seconds with up to nine decimals and an `s`; the integer part may be
 * left out (`".01s"`), as grpc-go's parseDuration accepts (grpc/grpc-go:service_config.go).
 */
const DURATION = /^(\d*)(?:\.(\d{0,9}))?s$/;

/**
 * Collects the problems of a hand-validated configuration document, each message naming the file
 * and the dotted path of the field (`envoy-route.yaml: retry_policy.num_retries must be a
 * non-negative integer (got "three")`), so every problem of a file is reported at once.
 */
export class FieldReader {
  readonly problems: string[] = [];
  private quotes = 0;
  private unknownKeys = 0;

  /** `where` names what paths are relative to when it is not the file's root (e.g. `[profile prod]`). */
  constructor(
    readonly source: string,
    private readonly where = '',
  ) {}

  /** How a field is spelled in messages (as the reader's documents name it; the key itself here). */
  protected spelled(key: string): string {
    return key;
  }

  /** The printed name of a path (each key read from the file shown by describeName: short and escaped). */
  name(path: readonly Segment[]): string {
    const dotted = path.map((s) => (typeof s === 'string' ? describeName(this.spelled(s)) : s)).join('.');
    if (this.where === '') return dotted === '' ? 'the document' : dotted;
    return dotted === '' ? this.where : `${this.where} ${dotted}`;
  }

  /** Record a problem at `path`: `text` is the rule and the offending value. */
  fail(path: readonly Segment[], text: string): undefined {
    this.problems.push(`${this.source}: ${this.name(path)} ${text}`);
    return undefined;
  }

  /** Record a problem that concerns the file as a whole. */
  failFile(text: string): undefined {
    this.problems.push(`${this.source}: ${text}`);
    return undefined;
  }

  /**
   * A value read from the file as a problem quotes it (describeValue: short, escaped): the first
   * {@link MAX_QUOTED_VALUES} quotes of a reader are the values, later ones say the value is not
   * shown, so that a file that is not what it was said to be is not printed into the messages.
   */
  quote(value: unknown): string {
    if (this.quotes >= MAX_QUOTED_VALUES) return `a value not shown (at most ${MAX_QUOTED_VALUES} are quoted)`;
    this.quotes++;
    return describeValue(value);
  }

  /** Throw every problem recorded so far (nothing when there is none). */
  throwIfAny(): void {
    if (this.problems.length > 0) throw new CheckInputError(this.problems);
  }

  /** `value` as an object, or a problem (`must be an object`); undefined stays undefined. */
  object(value: unknown, path: readonly Segment[], what = 'an object'): JsonObject | undefined {
    if (value === undefined) return undefined;
    if (isObject(value)) return value;
    return this.fail(path, `must be ${what} (got ${this.quote(value)})`);
  }

  /** Report the keys of `obj` that are not in `known`, with the nearest known key as a hint. */
  knownKeys(obj: JsonObject, path: readonly Segment[], known: readonly string[]): void {
    const unknown = Object.keys(obj).filter((key) => !known.includes(key));
    // Each unknown key is quoted in its path: past MAX_QUOTED_VALUES in this reader, the rest are counted.
    const listed = unknown.slice(0, Math.max(0, MAX_QUOTED_VALUES - this.unknownKeys));
    this.unknownKeys += listed.length;
    for (const key of listed) {
      const near = nearestName(key, known);
      this.fail([...path, key], near === undefined ? 'is not a known field' : `is not a known field (did you mean "${this.spelled(near)}"?)`);
    }
    const more = unknown.length - listed.length;
    if (more > 0) this.fail(path, `has ${more} more field${more > 1 ? 's' : ''} that ${more > 1 ? 'are' : 'is'} not known (not listed: at most ${MAX_QUOTED_VALUES} are)`);
  }


  /** A list, or a problem. */
  array(value: unknown, path: readonly Segment[], what = 'a list'): unknown[] | undefined {
    if (value === undefined) return undefined;
    if (Array.isArray(value)) return value;
    return this.fail(path, `must be ${what} (got ${this.quote(value)})`);
  }

  /** A string, or a problem. */
  string(value: unknown, path: readonly Segment[], what = 'a string'): string | undefined {
    if (value === undefined) return undefined;
    if (typeof value === 'string') return value;
    return this.fail(path, `must be ${what} (got ${this.quote(value)})`);
  }

  /**
   * An integer >= `min` (a number, or a string of digits, as protobuf JSON allows for integers);
   * `what` names the rule: `must be a non-negative integer (got "three")`.
   */
  integer(value: unknown, path: readonly Segment[], min: number, what: string): number | undefined {
    if (value === undefined) return undefined;
    const n = typeof value === 'string' && /^\s*\d+\s*$/.test(value) ? Number(value) : value;
    if (typeof n === 'number' && Number.isSafeInteger(n) && n >= min) return n;
    return this.fail(path, `must be ${what} (got ${this.quote(value)})`);
  }

  /** A JSON boolean (`true` or `false`, not a string), or a problem. */
  jsonBoolean(value: unknown, path: readonly Segment[]): boolean | undefined {
    if (value === undefined) return undefined;
    if (typeof value === 'boolean') return value;
    return this.fail(path, `must be true or false (got ${this.quote(value)})`);
  }

  /** A finite number satisfying `ok`; `what` names the rule. */
  number(value: unknown, path: readonly Segment[], ok: (n: number) => boolean, what: string): number | undefined {
    if (value === undefined) return undefined;
    const n = typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value)) ? Number(value) : value;
    if (typeof n === 'number' && Number.isFinite(n) && ok(n)) return n;
    return this.fail(path, `must be ${what} (got ${this.quote(value)})`);
  }

  /**
   * A protobuf JSON duration in milliseconds: `"0.25s"` (seconds with up to nine decimals and an
   * `s`), or `{ seconds, nanos }` as YAML configurations sometimes write it. Negative durations
   * are problems; so is 0 unless `allowZero`.
   */
  duration(value: unknown, path: readonly Segment[], allowZero = false): number | undefined {
    if (value === undefined) return undefined;
    const rule = allowZero ? 'a duration like "0.25s"' : 'a duration > 0 like "0.25s"';
    let ms: number | undefined;
    if (typeof value === 'string') {
      const m = DURATION.exec(value.trim());
      if (m !== null && `${m[1] ?? ''}${m[2] ?? ''}` !== '') ms = Number(m[1] || '0') * 1000 + Number(`0.${m[2] || '0'}`) * 1000;
    } else if (isObject(value) && Object.keys(value).every((k) => k === 'seconds' || k === 'nanos')) {
      const s = value.seconds === undefined ? 0 : Number(value.seconds);
      const n = value.nanos === undefined ? 0 : Number(value.nanos);
      if (Number.isInteger(s) && Number.isInteger(n) && s >= 0 && n >= 0 && n < 1e9) ms = s * 1000 + n / 1e6;
    }
    if (ms === undefined || (!allowZero && ms === 0)) return this.fail(path, `must be ${rule} (got ${this.quote(value)})`);
    return Math.round(ms * 1e6) / 1e6;
  }
}

/** A duration in ms as protobuf JSON writes it (`"0.1s"`), for messages. */
export function protoDuration(ms: number): string {
  return `${Number((ms / 1000).toFixed(9))}s`;
}
