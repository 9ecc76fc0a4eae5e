/** Copies of typed arrays grown to a new length (the model's per-frame and per-request storage doubles). */

export function growF64(a: Float64Array, n: number): Float64Array<ArrayBuffer> {
  const b = new Float64Array(n);
  b.set(a);
  return b;
}

export function growI32(a: Int32Array, n: number): Int32Array<ArrayBuffer> {
  const b = new Int32Array(n);
  b.set(a);
  return b;
}

export function growU8(a: Uint8Array, n: number): Uint8Array<ArrayBuffer> {
  const b = new Uint8Array(n);
  b.set(a);
  return b;
}
