import { tableGrew } from '../engine/memoryMeter.js';

/**
 * Columns of one table (the model's frames, its requests) carved out of a single ArrayBuffer: one
 * allocation per table and growth instead of one per column, which is most of the cost of building
 * a small model (a sweep builds thousands). Float64 columns come first, then Int32, then Uint8, so
 * every view is aligned. Each `f64`/`i32`/`u8` call takes the next view of `n` entries and copies
 * the old column into it (growth by doubling keeps the old entries).
 */
export class ColumnBuffer {
  private readonly buffer: ArrayBuffer;
  private readonly n: number;
  private at = 0;

  /** Room for `n` rows of `f64` Float64, `i32` Int32 and `u8` Uint8 columns. */
  constructor(n: number, f64: number, i32: number, u8: number) {
    this.n = n;
    this.buffer = new ArrayBuffer(n * (8 * f64 + 4 * i32 + u8));
  }

  private take(bytes: number): number {
    const at = this.at;
    const end = at + this.n * bytes;
    if (end > this.buffer.byteLength) tooManyColumns();
    this.at = end;
    return at;
  }

  /** The next Float64 column (take them before any Int32 or Uint8 column), with `old` copied in. */
  f64(old: Float64Array): Float64Array {
    const a = new Float64Array(this.buffer, this.take(8), this.n);
    a.set(old);
    return a;
  }

  /** The next Int32 column (after the Float64 ones), with `old` copied in. */
  i32(old: Int32Array): Int32Array {
    const a = new Int32Array(this.buffer, this.take(4), this.n);
    a.set(old);
    return a;
  }

  /** The next Uint8 column (after the others), with `old` copied in. */
  u8(old: Uint8Array): Uint8Array {
    const a = new Uint8Array(this.buffer, this.take(1), this.n);
    a.set(old);
    return a;
  }
}

/** The keys of T whose values are of type V. */
type KeysOf<T, V> = { [K in keyof T]: T[K] extends V ? K : never }[keyof T];

/**
 * The columns of a table, by name and type: the one declaration from which {@link growColumns}
 * sizes the buffer and assigns every column (nothing to keep in step by hand).
 */
export interface ColumnSpec<T> {
  f64: ReadonlyArray<KeysOf<T, Float64Array>>;
  i32: ReadonlyArray<KeysOf<T, Int32Array>>;
  u8: ReadonlyArray<KeysOf<T, Uint8Array>>;
}

/**
 * Give every column of `table` listed in `spec` room for `n` rows, in one {@link ColumnBuffer},
 * the old entries copied in (growth by doubling keeps them).
 */
export function growColumns<T>(table: T, spec: ColumnSpec<T>, n: number): void {
  const c = new ColumnBuffer(n, spec.f64.length, spec.i32.length, spec.u8.length);
  const t = table as Record<PropertyKey, unknown>;
  const first = spec.f64[0] ?? spec.i32[0] ?? spec.u8[0];
  const was = first === undefined ? 0 : (t[first] as ArrayLike<number>).length;
  tableGrew((n - was) * rowBytes(spec));
  for (const k of spec.f64) t[k] = c.f64(t[k] as Float64Array);
  for (const k of spec.i32) t[k] = c.i32(t[k] as Int32Array);
  for (const k of spec.u8) t[k] = c.u8(t[k] as Uint8Array);
}

/** Bytes of one row of a table of these columns. */
export function rowBytes<T>(spec: ColumnSpec<T>): number {
  return 8 * spec.f64.length + 4 * spec.i32.length + spec.u8.length;
}

function tooManyColumns(): never {
  throw new RangeError('ColumnBuffer: more columns taken than reserved');
}

/** Shared zero-length columns: the starting value of a table's columns before their first growth. */
export const NO_F64 = new Float64Array(0);
export const NO_I32 = new Int32Array(0);
export const NO_U8 = new Uint8Array(0);
