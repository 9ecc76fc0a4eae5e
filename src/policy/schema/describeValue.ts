const MAX_CHARS = 60;

/**
 * Short printable form of an input value for validation messages: JSON for JSON values
 * (`"abc"`, `0`, `[1,2]`), `NaN`/`Infinity` as such, truncated after 60 characters.
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
  return text.length > MAX_CHARS ? `${text.slice(0, MAX_CHARS - 3)}...` : text;
}
