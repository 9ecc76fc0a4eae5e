/**
 * Reads the fields of an untrusted JSON document (span files, query-API answers): each wrong field
 * becomes a problem naming its path from the document's root and the rule it broke, with the value
 * quoted by the one excerpt rule (`describeValue`), and reading goes on where it can.
 */
import { parseJson } from '../experiment/parseJson.js';
import { describeValue } from '../policy/schema/describeValue.js';
import { ProblemList, TelemetryInputError } from './TelemetryInputError.js';

/** A JSON path as messages print it: `resourceSpans.0.scopeSpans.1.spans.3.kind` (`(root)` for the root). */
export function pathText(path: readonly (string | number)[]): string {
  return path.length === 0 ? '(root)' : path.join('.');
}

/** The parsed JSON of a telemetry file, or a TelemetryInputError naming its line and column. */
export function parseTelemetryJson(text: string, file: string): unknown {
  const parsed = parseJson(text, file);
  if (!parsed.ok) throw new TelemetryInputError([parsed.error]);
  return parsed.value;
}

/** Field access with problems by path; a missing or wrong field yields undefined after its problem is recorded. */
export class JsonReader {
  constructor(readonly problems: ProblemList) {}

  /** Record `<path> <rule> (got <value>)`. */
  bad(path: readonly (string | number)[], rule: string, value: unknown): undefined {
    this.problems.add(pathText(path), `${rule} (got ${describeValue(value)})`);
    return undefined;
  }

  object(value: unknown, path: readonly (string | number)[]): Record<string, unknown> | undefined {
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) return value as Record<string, unknown>;
    return this.bad(path, 'must be an object', value);
  }

  array(value: unknown, path: readonly (string | number)[]): unknown[] | undefined {
    if (Array.isArray(value)) return value;
    return this.bad(path, 'must be an array', value);
  }

  /** A list that may be left out (absent or null: empty). */
  optionalArray(value: unknown, path: readonly (string | number)[]): unknown[] {
    if (value === undefined || value === null) return [];
    return this.array(value, path) ?? [];
  }

  string(value: unknown, path: readonly (string | number)[]): string | undefined {
    if (typeof value === 'string' && value !== '') return value;
    return this.bad(path, 'must be a non-empty string', value);
  }

  /** A non-negative integer written as a JSON number or a decimal string (64-bit fields in the protobuf JSON mapping are strings). */
  bigCount(value: unknown, path: readonly (string | number)[]): bigint | undefined {
    if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return BigInt(value);
    if (typeof value === 'string' && /^\d{1,20}$/.test(value)) return BigInt(value);
    return this.bad(path, 'must be a non-negative integer (a number or a decimal string)', value);
  }

  /** A non-negative finite number (microseconds in Jaeger and Zipkin). */
  micros(value: unknown, path: readonly (string | number)[]): number | undefined {
    if (typeof value === 'number' && Number.isFinite(value) && value >= 0) return value;
    return this.bad(path, 'must be a non-negative number of microseconds', value);
  }
}
