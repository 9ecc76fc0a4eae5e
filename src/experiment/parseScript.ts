import type { ScriptEntry, Status } from '../model/scenario.js';
import { ANSWER_STATUSES } from '../policy/outcome.js';
import { formatCount } from '../policy/groupThousands.js';
import { ValidationError } from './ValidationError.js';

/** Statuses a script entry can answer, as written in the trace flag syntax (policy/outcome.ts, `ANSWER_STATUSES`, and `hang`). */
export const SCRIPT_STATUSES: readonly string[] = [...ANSWER_STATUSES.map(String), 'hang'];

/** Largest repeat count of one entry (`503:250*7`), so a typo cannot allocate millions of entries. */
export const MAX_SCRIPT_REPEAT = 100_000;

/**
 * The longest duration or Retry-After a script entry may give (ms): about 31 years, far beyond any
 * horizon, and small enough that a simulated time plus it keeps a resolution finer than a microsecond.
 */
export const MAX_SCRIPT_MS = 1e12;

/** A decimal number, optionally with an exponent (`250`, `0.5`, `2e3`). */
const NUMBER = /^\d+(\.\d+)?([eE][+-]?\d+)?$/;
const COUNT = /^[1-9]\d*$/;
const SYNTAX = 'status[:durationMs][:ra=retryAfterMs][*count]';
/** The rule of a duration or Retry-After of the text syntax, as messages state it. */
const MS_RULE = `a number of ms from 0 to ${formatCount(MAX_SCRIPT_MS)}`;

/** Whether `text` is a number of ms the rule allows. */
function isScriptMs(text: string): boolean {
  return NUMBER.test(text) && Number(text) <= MAX_SCRIPT_MS;
}

/** One entry of a script that could not be read, and why. */
export interface ScriptEntryProblem {
  /** Position of the entry in the text, from 1. */
  position: number;
  /** The entry as written (trimmed). */
  entry: string;
  reason: string;
}

/** Reads one entry; returns the entries it stands for (several when repeated) or a reason. */
function readEntry(raw: string): ScriptEntry[] | string {
  if (raw === '') return 'is empty';
  let body = raw;
  let count = 1;
  const star = raw.lastIndexOf('*');
  if (star >= 0) {
    const countText = raw.slice(star + 1).trim();
    if (!COUNT.test(countText) || Number(countText) > MAX_SCRIPT_REPEAT) {
      return `repeat count must be an integer from 1 to ${MAX_SCRIPT_REPEAT} (got ${JSON.stringify(countText)})`;
    }
    count = Number(countText);
    body = raw.slice(0, star).trim();
  }
  const [statusText = '', ...rest] = body.split(':').map((part) => part.trim());
  if (!SCRIPT_STATUSES.includes(statusText)) {
    return `status must be one of ${SCRIPT_STATUSES.join(', ')} (got ${JSON.stringify(statusText)})`;
  }
  let durationMs: number | undefined;
  let retryAfterMs: number | undefined;
  for (const part of rest) {
    if (part.startsWith('ra=')) {
      const value = part.slice(3);
      if (retryAfterMs !== undefined) return `ra= is given twice`;
      if (!isScriptMs(value)) return `ra= (retryAfterMs) must be ${MS_RULE} (got ${JSON.stringify(value)})`;
      retryAfterMs = Number(value);
    } else if (durationMs === undefined && retryAfterMs === undefined) {
      if (!isScriptMs(part)) return `durationMs must be ${MS_RULE} (got ${JSON.stringify(part)})`;
      durationMs = Number(part);
    } else {
      return `unexpected ${JSON.stringify(part)} (expected ${SYNTAX})`;
    }
  }
  if (statusText === 'hang') {
    if (durationMs !== undefined || retryAfterMs !== undefined) return `"hang" takes no duration or ra= (it never answers)`;
    return Array.from({ length: count }, (): ScriptEntry => ({ status: 'hang', durationMs: 0 }));
  }
  if (statusText === 'timeout' && durationMs === undefined) {
    // No answer in time: the attempt ends at its own timeout or the deadline, as a hang's does.
    if (retryAfterMs !== undefined) return `"timeout" without a duration takes no ra= (no answer comes; give a duration, "timeout:250:ra=100")`;
    return Array.from({ length: count }, (): ScriptEntry => ({ status: 'hang', durationMs: 0 }));
  }
  const status = ANSWER_STATUSES.find((s) => String(s) === statusText) as Status;
  const entry: ScriptEntry = { status, durationMs: durationMs ?? 0 };
  if (retryAfterMs !== undefined) entry.retryAfterMs = retryAfterMs;
  return Array.from({ length: count }, () => ({ ...entry }));
}

/**
 * Reads a script in the trace flag syntax without throwing: entries separated by commas, each
 * `status[:durationMs][:ra=retryAfterMs][*count]` (`503:250`, `503:100:ra=2000`, `hang`,
 * `503:250*7` for seven entries). A missing duration is 0, except for `timeout`: without a duration
 * no answer comes and the attempt ends at its own timeout or the deadline (a `hang` entry); durations
 * and Retry-After are numbers of ms from 0 to {@link MAX_SCRIPT_MS}.
 */
export function readScript(text: string): { ok: true; entries: ScriptEntry[] } | { ok: false; problems: ScriptEntryProblem[] } {
  const entries: ScriptEntry[] = [];
  const problems: ScriptEntryProblem[] = [];
  if (text.trim() === '') return { ok: false, problems: [{ position: 1, entry: text, reason: 'is empty' }] };
  const raws = text.split(',').map((part) => part.trim());
  for (const [index, raw] of raws.entries()) {
    const result = readEntry(raw);
    if (typeof result === 'string') problems.push({ position: index + 1, entry: raw, reason: result });
    else entries.push(...result);
  }
  return problems.length > 0 ? { ok: false, problems } : { ok: true, entries };
}

/**
 * Parses the `--script` flag of `trace` (`"503:250,503:250*2,200:250"`, see `readScript`) into the
 * entries of a scripted leaf. Throws a ValidationError listing every bad entry
 * (`script entry 2 "503:abc": durationMs must be a number of ms from 0 to 1,000,000,000,000 (got "abc")`).
 */
export function parseScript(text: string): ScriptEntry[] {
  const result = readScript(text);
  if (result.ok) return result.entries;
  if (text.trim() === '') throw new ValidationError([`script is empty (expected entries like "503:250,200:10")`]);
  throw new ValidationError(result.problems.map((p) => `script entry ${p.position} ${JSON.stringify(p.entry)}: ${p.reason}`));
}
