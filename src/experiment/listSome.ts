import { formatCount } from '../policy/groupThousands.js';

/** How many names a message lists before it says how many more there are. */
export const MAX_LISTED_NAMES = 10;

/**
 * Names for a message, comma-separated: all of them, or the first {@link MAX_LISTED_NAMES} and
 * `and N more` (`a, b, c, d, e, f, g, h, i, j and 9,979 more`), so that a graph of thousands of
 * services gives a line, not a page.
 */
export function listSome(names: readonly string[]): string {
  if (names.length <= MAX_LISTED_NAMES) return names.join(', ');
  return `${names.slice(0, MAX_LISTED_NAMES).join(', ')} and ${formatCount(names.length - MAX_LISTED_NAMES)} more`;
}
