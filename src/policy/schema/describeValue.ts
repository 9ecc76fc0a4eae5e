// How a message quotes what it read from a file (a value, a line, a name): short, on one line,
// every control character escaped. The rule is written here once; every reader of experiment,
// stack and configuration files quotes through it.

/** The most characters of an input (a value, a line of a file, a name) a message quotes; the rest is cut to `...`. */
export const MAX_QUOTED_CHARS = 60;

/**
 * The most lines of one file read line by line (INI, `.properties`, `KEY=value`) that its problems
 * quote; the other bad lines are counted, not quoted, so that a file that is not of the format (a
 * system file named as an AWS config) is not printed into the messages.
 */
export const MAX_QUOTED_LINES = 3;

/**
 * The most values (and unknown keys) of one JSON or YAML document its problems quote: each is at
 * a field the reader knows, so a file of another kind rarely reaches it, while a real
 * configuration with several wrong values gets each one shown.
 */
export const MAX_QUOTED_VALUES = 10;

/**
 * The most characters of a name read from a file (a key in a dotted path, a profile in a list) and
 * of a parser's own message (which may quote the text it stopped at) a message repeats: names of
 * real configurations can be long (`resilience4j.retry.instances.<name>.exponentialBackoffMultiplier`).
 */
export const MAX_NAME_CHARS = 2 * MAX_QUOTED_CHARS;

/** The most names (profiles, routes, parts...) a message lists; the others are counted. */
export const MAX_LISTED_NAMES = 12;

/**
 * Characters JSON leaves as they are that a terminal or an editor acts on: DEL, C1 controls, the
 * line and paragraph separators and the bidirectional overrides (which reorder what follows them).
 */
const UNSAFE = /[\u007f-\u009f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/** Whether a text holds a character of {@link UNSAFE} (the same class, without the global flag's state). */
const HAS_UNSAFE = new RegExp(UNSAFE.source);

function escapeUnsafe(text: string): string {
  return text.replace(UNSAFE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

function clip(text: string, max = MAX_QUOTED_CHARS): string {
  return text.length > max ? `${text.slice(0, max - 3)}...` : text;
}

/**
 * Short printable form of an input value for validation messages: JSON for JSON values
 * (`"abc"`, `0`, `[1,2]`; control characters escaped, a line break as `\n`), `NaN`/`Infinity` as
 * such, cut after {@link MAX_QUOTED_CHARS} characters. A line of a file is quoted the same way.
 */
export function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (typeof value === 'number') return Number.isFinite(value) ? JSON.stringify(value) : String(value);
  if (typeof value === 'bigint') return `${value}n`;
  if (typeof value === 'function' || typeof value === 'symbol') return typeof value;
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return clip(escapeUnsafe(text));
}

/**
 * A name read from a file, unquoted, as messages print it (a key in a dotted path, a profile or
 * route in a list): itself when it is short and plain, else escaped like {@link describeValue}
 * and cut after {@link MAX_NAME_CHARS} characters.
 */
export function describeName(name: string): string {
  // eslint-disable-next-line no-control-regex -- matching control characters is the point
  if (name.length <= MAX_NAME_CHARS && !/[\u0000-\u001f"\\]/.test(name) && !HAS_UNSAFE.test(name)) return name;
  return clip(escapeUnsafe(JSON.stringify(name).slice(1, -1)), MAX_NAME_CHARS);
}

/** Items already described for a message (`a`, `VirtualService "vs" spec.http.0`) as a list: at most {@link MAX_LISTED_NAMES}, then `and N more`. */
export function listItems(items: readonly string[], separator = ', '): string {
  const shown = items.slice(0, MAX_LISTED_NAMES);
  const more = items.length - shown.length;
  return more > 0 ? `${shown.join(separator)}${separator}and ${more} more` : shown.join(separator);
}

/** Names read from a file as a message lists them: `a, b, c`, each by {@link describeName}, at most {@link MAX_LISTED_NAMES} and `and N more`. */
export function listNames(names: readonly string[], separator = ', '): string {
  return listItems(names.map(describeName), separator);
}

/**
 * A parser's message about a file (which may quote the text it stopped at) as our messages repeat
 * it: its first line, control characters escaped, cut after {@link MAX_NAME_CHARS} characters.
 */
export function describeParserMessage(message: string): string {
  const line = message.split(/\r?\n/)[0] ?? '';
  // eslint-disable-next-line no-control-regex -- matching control characters is the point
  const escaped = escapeUnsafe(line).replace(/[\u0000-\u001f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return clip(escaped, MAX_NAME_CHARS);
}
