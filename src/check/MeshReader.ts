import { FieldReader, type Segment } from './FieldReader.js';

const UNIT_MS: Record<string, number> = { h: 3_600_000, m: 60_000, s: 1000, ms: 1, us: 0.001, 'µs': 0.001, ns: 0.000001 };
const GO_DURATION = /^(?:\d+(?:\.\d+)?(?:h|ms|m|s|us|µs|ns))+$/;
const PART = /(\d+(?:\.\d+)?)(h|ms|m|s|us|µs|ns)/g;

/**
 * A Go duration string (`"300ms"`, `"1.5s"`, `"1m30s"`, `"2h"`) in milliseconds, as Kubernetes
 * resources write them (Go's time.ParseDuration; Gateway API GEP-2257 allows the subset
 * `([0-9]{1,5}(h|m|s|ms)){1,4}`), or undefined when the text is not one. `"0"` is 0.
 */
export function goDurationMs(text: string): number | undefined {
  const t = text.trim();
  if (t === '0') return 0;
  if (!GO_DURATION.test(t)) return undefined;
  let ms = 0;
  for (const m of t.matchAll(PART)) ms += Number(m[1]) * (UNIT_MS[m[2] as string] as number);
  return Math.round(ms * 1e6) / 1e6;
}

/** Format milliseconds as the shortest Go duration (`1500` -> `"1.5s"`, `250` -> `"250ms"`), for messages and exports. */
export function formatGoDuration(ms: number): string {
  if (ms === 0) return '0s';
  if (ms % 1000 === 0) return `${ms / 1000}s`;
  if (Number.isInteger(ms)) return `${ms}ms`;
  return `${Number((ms * 1000).toFixed(3))}us`;
}

/**
 * A FieldReader for the configuration formats of meshes, gateways and frameworks: durations as Go
 * writes them (`"250ms"`), integers and booleans as Kubernetes annotations write them (strings).
 */
export class MeshReader extends FieldReader {
  /** A Go duration in ms (`"250ms"`); 0 is a problem unless `allowZero`. */
  goDuration(value: unknown, path: readonly Segment[], allowZero = false): number | undefined {
    if (value === undefined) return undefined;
    const ms = typeof value === 'string' ? goDurationMs(value) : undefined;
    if (ms === undefined || (!allowZero && ms === 0)) {
      return this.fail(path, `must be a duration ${allowZero ? '' : '> 0 '}like "250ms" or "1.5s" (got ${this.quote(value)})`);
    }
    return ms;
  }

  /** A boolean, or the strings "true" / "false" (any case). */
  boolean(value: unknown, path: readonly Segment[]): boolean | undefined {
    if (value === undefined) return undefined;
    if (typeof value === 'boolean') return value;
    if (typeof value === 'string' && /^(true|false)$/i.test(value.trim())) return value.trim().toLowerCase() === 'true';
    return this.fail(path, `must be true or false (got ${this.quote(value)})`);
  }
}
