/**
 * JSON of any size, both ways, without one string of the whole text: a summary of a sweep with a
 * million bins per series is larger than the longest string V8 can make (2^29 - 24 characters in
 * Node 20), so `JSON.stringify` and `readFileSync(..., 'utf8')` cannot hold it.
 *
 * - {@link writeJsonChunks} emits exactly the text of `toJson(value, indent)` (src/sweep/json.ts) in
 *   pieces: small subtrees go through `JSON.stringify` itself, large ones are walked.
 * - {@link JsonChunkParser} parses a value from a sequence of byte chunks, giving what `JSON.parse`
 *   gives for the same text (an own `__proto__` key included), nested at most {@link MAX_NESTING}
 *   levels.
 */
import { MAX_NESTING } from '../experiment/parseJson.js';

/** toJson's replacer: an infinite number means "none" and is left out (src/sweep/json.ts). */
function saved(v: unknown): unknown {
  return typeof v === 'number' && (v === Infinity || v === -Infinity) ? undefined : v;
}

function replacer(_k: string, v: unknown): unknown {
  return saved(v);
}

/** A subtree with fewer values than this (see isSmall) is written by `JSON.stringify` in one piece. */
const SMALL_VALUES = 100_000;
/** Numbers of a long array joined in one piece. */
const SLICE = 16_384;
/** Pieces are gathered up to about this many characters before they are emitted. */
const CHUNK_CHARS = 1 << 20;

/** Options of {@link writeJsonChunks}; `smallValues` only for tests (to walk small values too). */
export interface JsonChunkOptions {
  indent?: number;
  smallValues?: number;
  /**
   * Write infinite numbers as `null`, as `JSON.stringify` does (what `--json` prints), instead of
   * leaving them out as result files do (toJson).
   */
  infiniteAsNull?: boolean;
}

/**
 * Emit the text of `toJson(value, indent)` in pieces of about a megabyte (the last one may be
 * shorter; nothing is emitted for a value JSON leaves out, such as `undefined`).
 */
export function writeJsonChunks(value: unknown, emit: (chunk: string) => void, opts: JsonChunkOptions = {}): void {
  const writer = new JsonChunkWriter(emit, opts);
  const top = writer.prepare(value, '');
  if (omitted(top)) return;
  writer.write(top, 0);
  writer.flush();
}

/** What is left of `budget` after the values of v (a string weighs 1 per 16 characters more; counting stops at 0). */
function valuesLeft(v: unknown, budget: number): number {
  if (typeof v === 'string') return budget - 1 - (v.length >> 4);
  if (v === null || typeof v !== 'object') return budget - 1;
  let left = budget - 1;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length && left > 0; i++) left = valuesLeft(v[i], left);
  } else {
    for (const k in v) {
      if (left <= 0) break;
      if (Object.prototype.hasOwnProperty.call(v, k)) left = valuesLeft((v as Record<string, unknown>)[k], left);
    }
  }
  return left;
}

/** A value JSON leaves out of an object (and writes as null in an array). */
function omitted(v: unknown): boolean {
  return v === undefined || typeof v === 'function' || typeof v === 'symbol';
}

/** The text of one {@link writeJsonChunks} call, gathered into pieces of about {@link CHUNK_CHARS}. */
class JsonChunkWriter {
  private readonly indent: number;
  private readonly small: number;
  /** Infinite numbers kept (as null) rather than left out. */
  private readonly keep: boolean;
  private readonly pads: string[] = [''];
  private out = '';

  constructor(
    private readonly emit: (chunk: string) => void,
    opts: JsonChunkOptions,
  ) {
    this.indent = opts.indent ?? 0;
    this.small = opts.smallValues ?? SMALL_VALUES;
    this.keep = opts.infiniteAsNull === true;
  }

  /** A value as JSON sees it: `toJSON` applied, and (unless kept) an infinite number left out. */
  prepare(v: unknown, key: string): unknown {
    if (v !== null && typeof v === 'object' && typeof (v as { toJSON?: unknown }).toJSON === 'function') {
      v = (v as { toJSON: (k: string) => unknown }).toJSON(key);
    }
    return this.keep ? v : saved(v);
  }

  /** Writes v (already prepared, not omitted) at nesting depth `depth`: a small subtree in one piece, a large one walked. */
  write(v: unknown, depth: number): void {
    if (typeof v === 'number') return this.put(Number.isFinite(v) ? String(v) : 'null');
    if (v === null || typeof v !== 'object' || valuesLeft(v, this.small) > 0) {
      const text = this.keep ? JSON.stringify(v, null, this.indent) : (JSON.stringify(v, replacer, this.indent) as string);
      this.put(this.indent > 0 && depth > 0 ? text.replace(/\n/g, '\n' + this.pad(depth)) : text);
      return;
    }
    if (!Array.isArray(v)) return this.writeObject(v as Record<string, unknown>, depth);
    if (v.length === 0) return this.put('[]');
    if (v.every((e) => typeof e === 'number')) return this.writeSeries(v as number[], depth);
    this.writeArray(v, depth);
  }

  /** Emits what is left. */
  flush(): void {
    if (this.out.length > 0) this.emit(this.out);
  }

  /** A series: slices joined natively (a finite number's text is its String; others are null). */
  private writeSeries(v: readonly number[], depth: number): void {
    const first = '[' + this.nl(depth + 1);
    const next = ',' + this.nl(depth + 1);
    for (let i = 0; i < v.length; i += SLICE) {
      const slice = v.slice(i, i + SLICE);
      this.put((i > 0 ? next : first) + (slice.every(Number.isFinite) ? slice : slice.map((e) => (Number.isFinite(e) ? e : 'null'))).join(next));
    }
    this.put(this.nl(depth) + ']');
  }

  /** A non-empty array, element by element (an omitted one as null). */
  private writeArray(v: readonly unknown[], depth: number): void {
    const first = '[' + this.nl(depth + 1);
    const next = ',' + this.nl(depth + 1);
    for (let i = 0; i < v.length; i++) {
      const e: unknown = v[i];
      // Numbers (the long series) take the short way: toJSON and the replacer leave finite ones alone.
      if (typeof e === 'number') {
        this.put((i > 0 ? next : first) + (Number.isFinite(e) ? String(e) : 'null'));
        continue;
      }
      const x = this.prepare(e, String(i));
      this.put(i > 0 ? next : first);
      if (omitted(x)) this.put('null');
      else this.write(x, depth + 1);
    }
    this.put(this.nl(depth) + ']');
  }

  /** An object, key by key (omitted values left out). */
  private writeObject(v: Record<string, unknown>, depth: number): void {
    let first = true;
    this.put('{');
    for (const k of Object.keys(v)) {
      const x = this.prepare(v[k], k);
      if (omitted(x)) continue;
      this.put((first ? '' : ',') + this.nl(depth + 1) + JSON.stringify(k) + (this.indent > 0 ? ': ' : ':'));
      first = false;
      this.write(x, depth + 1);
    }
    this.put(first ? '}' : this.nl(depth) + '}');
  }

  private put(s: string): void {
    this.out += s;
    if (this.out.length >= CHUNK_CHARS) {
      this.emit(this.out);
      this.out = '';
    }
  }

  private pad(depth: number): string {
    while (this.pads.length <= depth) this.pads.push(' '.repeat(this.indent * this.pads.length));
    return this.pads[depth] as string;
  }

  /** A new line at `depth` (nothing without indentation). */
  private nl(depth: number): string {
    return this.indent > 0 ? '\n' + this.pad(depth) : '';
  }
}

/**
 * The value `JSON.parse(toJson(value))` gives, without the text: infinite numbers and `undefined`
 * left out of objects (null in arrays), NaN as null, -0 as 0, `toJSON` applied.
 */
export function jsonClone(value: unknown): unknown {
  const one = (v: unknown, key: string): unknown => {
    if (v !== null && typeof v === 'object' && typeof (v as { toJSON?: unknown }).toJSON === 'function') {
      v = (v as { toJSON: (k: string) => unknown }).toJSON(key);
    }
    v = saved(v);
    if (typeof v === 'number') return Number.isFinite(v) ? (v === 0 ? 0 : v) : null;
    if (v === undefined || typeof v === 'function' || typeof v === 'symbol') return undefined;
    if (v === null || typeof v !== 'object') return v;
    if (v instanceof Number || v instanceof String || v instanceof Boolean) return one(v.valueOf(), key);
    if (Array.isArray(v)) {
      const out = new Array<unknown>(v.length);
      for (let i = 0; i < v.length; i++) {
        const x = one(v[i], String(i));
        out[i] = x === undefined ? null : x;
      }
      return out;
    }
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v)) {
      const x = one((v as Record<string, unknown>)[k], k);
      if (x !== undefined) setOwn(out, k, x);
    }
    return out;
  };
  return one(value, '');
}

/** `o[k] = v` as JSON.parse does it: `__proto__` becomes an own property, not the prototype. */
function setOwn(o: Record<string, unknown>, k: string, v: unknown): void {
  if (k === '__proto__') Object.defineProperty(o, k, { value: v, writable: true, enumerable: true, configurable: true });
  else o[k] = v;
}

/** Text that is not one valid JSON value; `offset` counts bytes from the start of the input. */
export class JsonChunkError extends Error {
  constructor(
    readonly why: string,
    readonly offset: number,
  ) {
    super(`${why} at byte ${offset}`);
  }
}

const EMPTY = Buffer.alloc(0);
const NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;
/** 10^k for k <= 15, each exact in a double. */
const POW10 = Array.from({ length: 16 }, (_, k) => 10 ** k);

/** Whether byte c may be part of a JSON number's text (digits, sign, point, exponent). */
function numberByte(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || c === 0x2d || c === 0x2b || c === 0x2e || c === 0x65 || c === 0x45;
}

/**
 * A JSON parser over byte chunks (`pull` returns the next chunk, or null at the end), for texts too
 * long for one string. {@link parse} reads one value and checks that only whitespace follows.
 */
export class JsonChunkParser {
  private buf: Buffer = EMPTY;
  /** `buf` decoded as latin1 (one character per byte), where numbers' texts are cut from. */
  private text = '';
  private pos = 0;
  /** Bytes of the chunks before `buf`. */
  private base = 0;

  constructor(private readonly pull: () => Buffer | null) {}

  /** The one value of the input. */
  parse(): unknown {
    const v = this.value(0);
    if (this.skipWs() !== -1) this.fail('unexpected text after the value');
    return v;
  }

  private fail(why: string): never {
    throw new JsonChunkError(why, this.base + this.pos);
  }

  private fill(): boolean {
    while (this.pos >= this.buf.length) {
      const next = this.pull();
      if (next === null) return false;
      this.base += this.buf.length;
      this.buf = next;
      this.text = next.toString('latin1');
      this.pos = 0;
    }
    return true;
  }

  /** The next byte that is not whitespace (not consumed), or -1 at the end. */
  private skipWs(): number {
    for (;;) {
      const b = this.buf;
      const n = b.length;
      let p = this.pos;
      while (p < n) {
        const c = b[p] as number;
        if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) {
          this.pos = p;
          return c;
        }
        p++;
      }
      this.pos = p;
      if (!this.fill()) return -1;
    }
  }

  private value(depth: number): unknown {
    const c = this.skipWs();
    if (c === 0x7b || c === 0x5b) {
      if (depth >= MAX_NESTING) this.fail(`nested too deep: arrays and objects may nest at most ${MAX_NESTING} levels`);
      this.pos++;
      return c === 0x7b ? this.object(depth + 1) : this.array(depth + 1);
    }
    if (c === 0x22) return this.string();
    if (c === 0x2d || (c >= 0x30 && c <= 0x39)) return this.number();
    if (c === 0x74) return this.literal('true', true);
    if (c === 0x66) return this.literal('false', false);
    if (c === 0x6e) return this.literal('null', null);
    return this.fail(c === -1 ? 'unexpected end of input' : `unexpected character ${JSON.stringify(String.fromCharCode(c))}`);
  }

  private object(depth: number): Record<string, unknown> {
    const o: Record<string, unknown> = {};
    if (this.skipWs() === 0x7d) {
      this.pos++;
      return o;
    }
    for (;;) {
      if (this.skipWs() !== 0x22) this.fail('expected a property name');
      const k = this.string();
      if (this.skipWs() !== 0x3a) this.fail('expected ":"');
      this.pos++;
      setOwn(o, k, this.value(depth));
      const c = this.skipWs();
      if (c === 0x7d || c === 0x2c) this.pos++;
      if (c === 0x7d) return o;
      if (c !== 0x2c) this.fail(c === -1 ? 'unexpected end of input' : 'expected "," or "}"');
    }
  }

  private array(depth: number): unknown[] {
    const a: unknown[] = [];
    if (this.skipWs() === 0x5d) {
      this.pos++;
      return a;
    }
    for (;;) {
      a.push(this.value(depth));
      const c = this.skipWs();
      if (c === 0x5d || c === 0x2c) this.pos++;
      if (c === 0x5d) return a;
      if (c !== 0x2c) this.fail(c === -1 ? 'unexpected end of input' : 'expected "," or "]"');
    }
  }

  private literal(word: string, v: unknown): unknown {
    for (let i = 0; i < word.length; i++) {
      if (!this.fill() || this.buf[this.pos] !== word.charCodeAt(i)) this.fail(`expected ${word}`);
      this.pos++;
    }
    return v;
  }

  /**
   * A number. Within one chunk, a well-formed number's text is checked while it is scanned: up to
   * 15 significant digits without an exponent its value is computed from its digits (an integer
   * below 2^53 divided by an exact power of ten: one correctly rounded division, W. D. Clinger, "How
   * to read floating point numbers accurately", PLDI 1990, the fast path), else the text cut from the
   * chunk goes to Number(). A number across chunks, or text that is not a number, takes
   * {@link numberAcross}, which gathers the text and checks it whole.
   */
  private number(): number {
    const b = this.buf;
    const n = b.length;
    const start = this.pos;
    let q = start;
    const negative = b[q] === 0x2d;
    if (negative) q++;
    const intStart = q;
    let mant = 0;
    let c: number;
    while (q < n && (c = b[q] as number) >= 0x30 && c <= 0x39) {
      mant = mant * 10 + (c - 0x30);
      q++;
    }
    const intDigits = q - intStart;
    // JSON's integer part: 0, or digits that do not start with 0.
    if (intDigits === 0 || (intDigits > 1 && b[intStart] === 0x30)) return this.numberAcross();
    let frac = 0;
    if (q < n && b[q] === 0x2e) {
      const fracStart = ++q;
      while (q < n && (c = b[q] as number) >= 0x30 && c <= 0x39) {
        mant = mant * 10 + (c - 0x30);
        q++;
      }
      frac = q - fracStart;
      if (frac === 0) return this.numberAcross();
    }
    let exponent = false;
    if (q < n && ((c = b[q] as number) === 0x65 || c === 0x45)) {
      exponent = true;
      q++;
      if (q < n && ((c = b[q] as number) === 0x2b || c === 0x2d)) q++;
      const expStart = q;
      while (q < n && (c = b[q] as number) >= 0x30 && c <= 0x39) q++;
      if (q === expStart) return this.numberAcross();
    }
    // The text may go on in the next chunk, or run into more number characters: the slow way decides.
    if (q >= n || numberByte(b[q] as number)) return this.numberAcross();
    this.pos = q;
    if (!exponent && intDigits + frac <= 15) {
      const v = frac === 0 ? mant : mant / (POW10[frac] as number);
      return negative ? -v : v;
    }
    return Number(this.text.slice(start, q));
  }

  /** A number whose text may span chunks: gathered whole, checked against JSON's grammar, then read. */
  private numberAcross(): number {
    let text = '';
    for (;;) {
      const b = this.buf;
      const start = this.pos;
      let p = start;
      while (p < b.length) {
        if (!numberByte(b[p] as number)) break;
        p++;
      }
      text += b.toString('latin1', start, p);
      this.pos = p;
      if (p < b.length || !this.fill()) break;
    }
    if (!NUMBER.test(text)) this.fail(`not a number: ${JSON.stringify(text)}`);
    return Number(text);
  }

  private string(): string {
    // At the opening quote. Gather the raw bytes up to the closing quote, then decode them.
    this.pos++;
    const parts: Buffer[] = [];
    let escaped = false;
    let plain = true;
    for (;;) {
      if (!this.fill()) this.fail('unterminated string');
      const b = this.buf;
      const start = this.pos;
      let p = start;
      let closed = false;
      while (p < b.length) {
        const c = b[p] as number;
        if (escaped) escaped = false;
        else if (c === 0x5c) {
          escaped = true;
          plain = false;
        } else if (c === 0x22) {
          closed = true;
          break;
        } else if (c < 0x20) {
          this.pos = p;
          this.fail('control character in a string');
        }
        p++;
      }
      parts.push(b.subarray(start, p));
      this.pos = closed ? p + 1 : p;
      if (closed) break;
    }
    const raw = (parts.length === 1 ? (parts[0] as Buffer) : Buffer.concat(parts)).toString('utf8');
    if (plain) return raw;
    try {
      return JSON.parse(`"${raw}"`) as string;
    } catch {
      return this.fail('invalid escape in a string');
    }
  }
}
