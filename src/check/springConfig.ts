import { CheckInputError } from './CheckInputError.js';
import { isObject } from './FieldReader.js';
import { LineProblems } from './LineProblems.js';
import { readResources } from './readResources.js';
import { describeName, describeValue, listItems, MAX_LISTED_NAMES } from '../policy/schema/describeValue.js';

/**
 * The highest list index a Spring configuration key may give (`retryExceptions[63]`). Spring binds
 * `x[0]`, `x[1]`... into a list as long as the highest index; real files list a handful of
 * exception classes, and an index like `x[999999999]` would ask for a list of a billion entries,
 * so a higher index is refused.
 */
export const MAX_SPRING_LIST_INDEX = 999;

const BAD_INDEX = `has a list index above ${MAX_SPRING_LIST_INDEX} (the highest a list here may have)`;

/** One value of a Spring configuration and where it is written (`line 3`, or the YAML keys as written). */
export interface SpringValue {
  value: unknown;
  where: string;
}

/**
 * A Spring configuration flattened to its dotted keys, as Spring's YamlPropertySourceLoader and
 * `.properties` loader flatten it: `resilience4j.retry.instances.a.maxAttempts`, whatever the split
 * of the YAML keys (`resilience4j.retry:` then nested keys, or one nested key per segment); lists
 * (a YAML list, or `x[0]`, `x[1]`... keys) are kept as lists under the key without the index.
 */
export interface SpringConfig {
  values: Map<string, SpringValue>;
  /** Keys given twice: Spring keeps the last one, as does this reader; each note says which. */
  notes: string[];
}

/** Whether a file is a `.properties` file: by its name, or, without a YAML or JSON name, by `key=value` lines under `resilience4j.`. */
export function isPropertiesText(text: string, source: string): boolean {
  if (/\.properties$/i.test(source)) return true;
  if (/\.(ya?ml|json)$/i.test(source) || /^\s*[{[]/.test(text)) return false;
  return /^\s*resilience4j\.[^:=\s]*\s*=/m.test(text);
}

class FlatBuilder {
  readonly values = new Map<string, SpringValue>();
  /** Where each list item was written, by its key with the index (`x[0]`). */
  private readonly itemWhere = new Map<string, string>();
  private readonly repeated: string[] = [];

  /**
   * Set `key` (which may end in `[n]`) to `value`; a key given twice keeps the last value, with a
   * note. False (and nothing set) when the index is above {@link MAX_SPRING_LIST_INDEX}.
   */
  set(key: string, value: unknown, where: string): boolean {
    const indexed = /^(.*)\[(\d+)\]$/.exec(key);
    if (indexed === null) {
      const prev = this.values.get(key);
      if (prev !== undefined) this.repeat(key, prev.where, where);
      this.values.set(key, { value, where });
      return true;
    }
    const base = indexed[1] as string;
    const index = Number(indexed[2]);
    if (!Number.isSafeInteger(index) || index > MAX_SPRING_LIST_INDEX) return false;
    const prev = this.values.get(base);
    if (prev !== undefined && !Array.isArray(prev.value)) this.repeat(base, prev.where, where);
    const list: unknown[] = Array.isArray(prev?.value) ? (prev.value as unknown[]) : [];
    const itemWhere = this.itemWhere.get(key);
    if (itemWhere !== undefined) this.repeat(key, itemWhere, where);
    list[index] = value;
    this.itemWhere.set(key, where);
    this.values.set(base, { value: list, where });
    return true;
  }

  private repeat(key: string, first: string, last: string): void {
    this.repeated.push(`${describeName(key)} is given twice (${first} and ${last}): Spring keeps the last one (${last}).`);
  }

  /** A note per key given twice, the first {@link MAX_LISTED_NAMES}, then how many more. */
  notes(): string[] {
    const shown = this.repeated.slice(0, MAX_LISTED_NAMES);
    const more = this.repeated.length - shown.length;
    return more > 0 ? [...shown, `${more} more keys are given twice; Spring keeps the last of each.`] : shown;
  }
}

/** A `.properties` escape (`\\=`, `\\t`, `\\u00e9`) as the character it stands for (java.util.Properties#load). */
function unescape(text: string): string {
  const named: Record<string, string> = { t: '\t', n: '\n', r: '\r', f: '\f' };
  return text.replace(/\\(u[0-9a-fA-F]{4}|.)/g, (_, c: string) => (c.length === 5 ? String.fromCharCode(parseInt(c.slice(1), 16)) : (named[c] ?? c)));
}

/**
 * The logical lines of a `.properties` file, as java.util.Properties#load reads them: a line ending
 * in an odd number of backslashes continues on the next (its leading blanks dropped); `#` and `!`
 * start comments. Each with the number of the line it starts on.
 */
function logicalLines(text: string): Array<{ line: number; text: string }> {
  const out: Array<{ line: number; text: string }> = [];
  let pending: { line: number; text: string } | undefined;
  text.split(/\r?\n/).forEach((raw, i) => {
    const part = pending === undefined ? raw.trim() : raw.trimStart();
    if (pending === undefined && (part === '' || part.startsWith('#') || part.startsWith('!'))) return;
    const continues = (/\\+$/.exec(part)?.[0].length ?? 0) % 2 === 1;
    const text = (pending?.text ?? '') + (continues ? part.slice(0, -1) : part);
    if (continues) pending = { line: pending?.line ?? i + 1, text };
    else {
      out.push({ line: pending?.line ?? i + 1, text });
      pending = undefined;
    }
  });
  if (pending !== undefined) out.push(pending);
  return out;
}

function readProperties(text: string, source: string): SpringConfig {
  const problems = new LineProblems(source);
  const flat = new FlatBuilder();
  for (const { line, text: logical } of logicalLines(text)) {
    // The key ends at the first unescaped "=", ":" or blank; then blanks, at most one "=" or ":", blanks.
    const m = /^((?:\\.|[^=:\s\\])+)\s*(?:[=:]\s*|\s)(.*)$/.exec(logical) ?? /^((?:\\.|[^=:\s\\])+)$/.exec(logical);
    if (m === null) {
      problems.bad(line, 'must be a "key=value" property', logical);
      continue;
    }
    const key = unescape(m[1] as string);
    if (!flat.set(key, unescape((m[2] ?? '').trim()), `line ${line}`)) problems.bad(line, BAD_INDEX, key);
  }
  problems.throwIfAny();
  return { values: flat.values, notes: flat.notes() };
}

/** A document's leaves as dotted keys, in document order (walked without recursion: readDocument has already refused documents nested too deep). */
function leaves(doc: unknown): Array<{ key: string; value: unknown; written: string[] }> {
  const out: Array<{ key: string; value: unknown; written: string[] }> = [];
  const stack: Array<{ value: unknown; key: string; written: string[] }> = [{ value: doc, key: '', written: [] }];
  while (stack.length > 0) {
    const { value, key, written } = stack.pop() as { value: unknown; key: string; written: string[] };
    if (isObject(value) && (key === '' || Object.keys(value).length > 0)) {
      const entries = Object.entries(value).reverse();
      for (const [k, v] of entries) stack.push({ value: v, key: key === '' ? k : `${key}.${k}`, written: [...written, k] });
    } else if (key !== '') out.push({ key, value, written });
  }
  return out;
}

/**
 * The keys that make a document of a multi-document application.yml apply only under a condition
 * (Spring Boot 2.4+ `spring.config.activate.on-profile` / `on-cloud-platform`, and the older
 * `spring.profiles`), by relaxed name.
 */
const CONDITIONAL = /^spring\.(config\.activate\.|profiles$)/;

function readTree(text: string, source: string): SpringConfig {
  const problems: string[] = [];
  const flat = new FlatBuilder();
  const docs = readResources(text, source).map((r) => r.value);
  const skipped: string[] = [];
  docs.forEach((doc, i) => {
    const keys = leaves(doc);
    const condition = keys.find((k) => CONDITIONAL.test(k.key.split('.').map((p) => p.replace(/[-_]/g, '').toLowerCase()).join('.')));
    const label = docs.length > 1 ? `document ${i + 1}: ` : '';
    if (condition !== undefined) {
      skipped.push(`document ${i + 1} (${describeName(condition.key)}: ${describeValue(condition.value)})`);
      return;
    }
    for (const k of keys) {
      const where = label + k.written.map(describeName).join(' > ');
      if (!flat.set(k.key, k.value, where)) problems.push(`${source}: ${where} ${BAD_INDEX} (got ${describeName(k.key.slice(k.key.lastIndexOf('[')))})`);
    }
  });
  if (problems.length > 0) throw new CheckInputError(problems);
  const notes = flat.notes();
  if (skipped.length > 0) notes.push(`${listItems(skipped)} ${skipped.length > 1 ? 'apply' : 'applies'} only with that profile or platform active and ${skipped.length > 1 ? 'are' : 'is'} not read; the documents without a condition are, the later winning, as Spring merges them.`);
  return { values: flat.values, notes };
}

/**
 * A Spring Boot configuration (`application.yml`, `application.properties`, or JSON) as its dotted
 * keys (see {@link SpringConfig}). Of a multi-document YAML file (`---`), the documents without a
 * profile or platform condition are read in order, a later one winning, and the others noted. A `.properties` file is `key=value` (or `key: value`) lines,
 * `#` and `!` comments; a list index above {@link MAX_SPRING_LIST_INDEX} is refused. Every
 * problem throws a CheckInputError naming the file and the line or key.
 */
export function readSpringConfig(text: string, source: string): SpringConfig {
  return isPropertiesText(text, source) ? readProperties(text, source) : readTree(text, source);
}
