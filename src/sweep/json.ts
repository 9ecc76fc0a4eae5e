/**
 * JSON text for result files. An infinite number means "none" in the model (a fault window that
 * never closes, an attempt without a timeout): the key is left out, as in the input format, instead
 * of JSON.stringify's `null`.
 */
export function toJson(value: unknown, indent?: number): string {
  return JSON.stringify(value, (_k, v: unknown) => (typeof v === 'number' && (v === Infinity || v === -Infinity) ? undefined : v), indent);
}
