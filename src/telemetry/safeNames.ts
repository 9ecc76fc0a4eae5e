/**
 * Names read from telemetry (services, span names, callers) turned into the names an experiment file
 * accepts: a letter, then letters, digits, "_" and "-" (docs/experiments.md, "Service graphs"). Every other run of
 * characters becomes one "-", a name that does not start with a letter gets the prefix "s-", and a
 * name already taken (or reserved) gets "-2", "-3"... Each rename is kept to be told in the notes.
 */

/** The prefix of a name that does not start with a letter. */
const LETTER_PREFIX = 's-';
/** The longest name kept (the rest is cut): span names can be whole URLs. */
export const MAX_IMPORTED_NAME_CHARS = 48;

/** Assigns safe names, one per raw name, distinct within this set and from the reserved names. */
export class SafeNames {
  private readonly byRaw = new Map<string, string>();
  private readonly taken: Set<string>;
  /** `[raw, safe]` for every name that had to change. */
  readonly renamed: Array<[string, string]> = [];

  constructor(reserved: Iterable<string> = []) {
    this.taken = new Set(reserved);
  }

  /** The safe name of `raw` (the same each time it is asked). */
  of(raw: string): string {
    const known = this.byRaw.get(raw);
    if (known !== undefined) return known;
    let base = raw.replace(/[^A-Za-z0-9_-]+/g, '-').replace(/^-+|-+$/g, '');
    if (!/^[A-Za-z]/.test(base)) base = LETTER_PREFIX + base;
    base = base.slice(0, MAX_IMPORTED_NAME_CHARS).replace(/-+$/, '');
    let name = base;
    for (let i = 2; this.taken.has(name); i++) name = `${base}-${i}`;
    this.taken.add(name);
    this.byRaw.set(raw, name);
    if (name !== raw) this.renamed.push([raw, name]);
    return name;
  }
}
