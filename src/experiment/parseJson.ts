import { describeParserMessage, describeValue } from '../policy/schema/describeValue.js';
/** Where strict JSON text goes wrong: a 0-based offset and the reason. */
interface JsonFault {
  offset: number;
  reason: string;
}

class Fault {
  constructor(readonly fault: JsonFault) {}
}

function describeChar(ch: string): string {
  return describeValue(ch);
}

/** A recursive-descent reader of strict JSON (RFC 8259) that only locates the first error. */
class JsonScanner {
  private pos = 0;
  constructor(private readonly text: string) {}

  scan(): JsonFault | undefined {
    try {
      this.ws();
      this.value();
      this.ws();
      if (this.pos < this.text.length) this.fail(`unexpected ${describeChar(this.peek())} after the end of the JSON value`);
      return undefined;
    } catch (e) {
      if (e instanceof Fault) return e.fault;
      throw e;
    }
  }

  private fail(reason: string, at = this.pos): never {
    throw new Fault({ offset: at, reason });
  }

  private peek(): string {
    return this.text[this.pos] ?? '';
  }

  private ws(): void {
    while (this.pos < this.text.length && ' \t\n\r'.includes(this.peek())) this.pos++;
  }

  private unexpected(expected: string): never {
    const ch = this.peek();
    if (ch === '') this.fail(`unexpected end of input (expected ${expected})`);
    if (ch === '/') this.fail(`unexpected "/" (comments are not allowed in JSON)`);
    if (ch === "'") this.fail(`unexpected "'" (JSON strings use double quotes)`);
    this.fail(`unexpected ${describeChar(ch)} (expected ${expected})`);
  }

  private value(): void {
    const ch = this.peek();
    if (ch === '{') return this.object();
    if (ch === '[') return this.array();
    if (ch === '"') return this.string();
    if (ch === '-' || (ch >= '0' && ch <= '9')) return this.number();
    for (const word of ['true', 'false', 'null']) {
      if (this.text.startsWith(word, this.pos)) {
        this.pos += word.length;
        return;
      }
    }
    if (/[A-Za-z]/.test(ch)) {
      const word = /^[A-Za-z_$][\w$]*/.exec(this.text.slice(this.pos))?.[0] ?? ch;
      this.fail(`unexpected word ${describeValue(word)} (expected a value; strings need double quotes)`);
    }
    this.unexpected('a value');
  }

  private object(): void {
    this.pos++;
    this.ws();
    if (this.peek() === '}') {
      this.pos++;
      return;
    }
    for (;;) {
      this.ws();
      if (this.peek() !== '"') {
        if (this.peek() === '}') this.fail('unexpected "}" after "," (trailing commas are not allowed in JSON)');
        this.unexpected('a property name in double quotes');
      }
      this.string();
      this.ws();
      if (this.peek() !== ':') this.unexpected('":" after the property name');
      this.pos++;
      this.ws();
      this.value();
      this.ws();
      const ch = this.peek();
      if (ch === ',') {
        this.pos++;
        continue;
      }
      if (ch === '}') {
        this.pos++;
        return;
      }
      this.unexpected('"," or "}" after a property value');
    }
  }

  private array(): void {
    this.pos++;
    this.ws();
    if (this.peek() === ']') {
      this.pos++;
      return;
    }
    for (;;) {
      this.ws();
      if (this.peek() === ']') this.fail('unexpected "]" after "," (trailing commas are not allowed in JSON)');
      this.value();
      this.ws();
      const ch = this.peek();
      if (ch === ',') {
        this.pos++;
        continue;
      }
      if (ch === ']') {
        this.pos++;
        return;
      }
      this.unexpected('"," or "]" after an array element');
    }
  }

  private string(): void {
    const start = this.pos;
    this.pos++;
    for (;;) {
      if (this.pos >= this.text.length) this.fail('unterminated string', start);
      const ch = this.peek();
      if (ch === '"') {
        this.pos++;
        return;
      }
      if (ch === '\n' || ch === '\r') this.fail('unterminated string (line break inside a string)', start);
      if (ch < ' ') this.fail('control character inside a string (escape it)');
      if (ch === '\\') {
        const esc = this.text[this.pos + 1] ?? '';
        if ('"\\/bfnrt'.includes(esc) && esc !== '') this.pos += 2;
        else if (esc === 'u' && /^[0-9a-fA-F]{4}$/.test(this.text.slice(this.pos + 2, this.pos + 6))) this.pos += 6;
        else this.fail(`invalid escape ${describeValue(this.text.slice(this.pos, this.pos + 2))} in a string`);
        continue;
      }
      this.pos++;
    }
  }

  private number(): void {
    const match = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(this.text.slice(this.pos, this.pos + 400));
    if (match === null) this.fail(`invalid number`);
    this.pos += match[0].length;
    if (/[\d.eE]/.test(this.peek())) this.fail('invalid number');
  }
}

/** 1-based line and column of a 0-based offset (columns count UTF-16 code units). */
function lineColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text[i] === '\n') {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: offset - lineStart + 1 };
}

/**
 * How deep arrays and objects may nest in any JSON or YAML document read from a file: far beyond any
 * real configuration, and far below the depth at which recursive code runs out of stack.
 */
export const MAX_NESTING = 1000;

/** A container open at some point of a scan: an object (its keys so far, the current one) or an array (its index). */
interface OpenContainer {
  /** null for an array. */
  keys: Map<string, number> | null;
  /** The object's current key, or the array's current index. */
  at: string | number;
  /** An object's next string is a key (after "{" or ","). */
  expectKey: boolean;
}

/** What the structural scan of valid JSON finds first: nesting too deep, or a key repeated in one object. */
type StructureFault =
  | { kind: 'too-deep'; offset: number }
  | { kind: 'duplicate'; offset: number; firstOffset: number; key: string; path: string };

/** The index of the quote that closes the string opening at `start` (valid JSON: it exists). */
function stringEnd(text: string, start: number): number {
  let end = text.indexOf('"', start + 1);
  for (;;) {
    let slashes = 0;
    while (text.charCodeAt(end - 1 - slashes) === 0x5c) slashes++;
    if (slashes % 2 === 0) return end;
    end = text.indexOf('"', end + 1);
  }
}

/**
 * One linear pass over valid JSON text: the bracket that opens level MAX_NESTING + 1, or the second
 * occurrence of a key in one object (JSON.parse silently keeps the last; keys compare as decoded, so
 * `"a"` and `"\u0061"` are one key), whichever comes first; null when neither.
 */
function structureFault(text: string): StructureFault | null {
  const open: OpenContainer[] = [];
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      const end = stringEnd(text, i);
      const top = open[open.length - 1];
      if (top !== undefined && top.keys !== null && top.expectKey) {
        const raw = text.slice(i + 1, end);
        const key = raw.includes('\\') ? (JSON.parse(text.slice(i, end + 1)) as string) : raw;
        const first = top.keys.get(key);
        if (first !== undefined) {
          const path = open.slice(0, -1).map((o) => String(o.at)).join('.');
          return { kind: 'duplicate', offset: i, firstOffset: first, key, path };
        }
        top.keys.set(key, i);
        top.at = key;
        top.expectKey = false;
      }
      i = end;
    } else if (c === 0x7b || c === 0x5b) {
      if (open.length + 1 > MAX_NESTING) return { kind: 'too-deep', offset: i };
      open.push(c === 0x7b ? { keys: new Map(), at: '', expectKey: true } : { keys: null, at: 0, expectKey: false });
    } else if (c === 0x7d || c === 0x5d) open.pop();
    else if (c === 0x2c) {
      const top = open[open.length - 1] as OpenContainer;
      if (top.keys !== null) top.expectKey = true;
      else top.at = (top.at as number) + 1;
    }
  }
  return null;
}

/** The message for a document nested deeper than {@link MAX_NESTING} levels (`at` says where, if known). */
export function tooDeepMessage(source: string, at = ''): string {
  return `${source}: nested too deep${at}: arrays and objects may nest at most ${MAX_NESTING} levels`;
}

/**
 * Parses strict JSON (a leading byte-order mark is ignored). On failure the error reads
 * `<source>: invalid JSON at line L, column C: <reason>`, with the position of the first error;
 * a value nested deeper than {@link MAX_NESTING} levels is refused the same way (and marked
 * `tooDeep`), and so is a key repeated in one object (marked `duplicateKey`), which JSON.parse would silently resolve to
 * its last value (YAML refuses it too): `<source>: scenario.stack.0.policy: duplicate key
 * "maxAttempts" at line L, column C (first at line L', column C')`. Linear in the text.
 */
export function parseJson(
  text: string,
  source: string,
): { ok: true; value: unknown } | { ok: false; error: string; tooDeep?: true; duplicateKey?: true } {
  const body = text.startsWith('\uFEFF') ? text.slice(1) : text;
  try {
    const value = JSON.parse(body) as unknown;
    const fault = structureFault(body);
    if (fault === null) return { ok: true, value };
    const { line, column } = lineColumn(body, fault.offset);
    if (fault.kind === 'too-deep') return { ok: false, error: tooDeepMessage(source, ` at line ${line}, column ${column}`), tooDeep: true };
    const first = lineColumn(body, fault.firstOffset);
    const where = fault.path === '' ? '' : `${fault.path}: `;
    return {
      ok: false,
      duplicateKey: true,
      error: `${source}: ${where}duplicate key ${JSON.stringify(fault.key)} at line ${line}, column ${column} (first at line ${first.line}, column ${first.column})`,
    };
  } catch (e) {
    const fault = new JsonScanner(body).scan();
    if (fault === undefined) return { ok: false, error: `${source}: invalid JSON: ${describeParserMessage((e as Error).message)}` };
    const { line, column } = lineColumn(body, fault.offset);
    return { ok: false, error: `${source}: invalid JSON at line ${line}, column ${column}: ${fault.reason}` };
  }
}
