import { isScalar, LineCounter, parseDocument, visit, type Document } from 'yaml';
import { MAX_NESTING, parseJson, tooDeepMessage } from '../experiment/parseJson.js';
import { describeParserMessage } from '../policy/schema/describeValue.js';
import { CheckInputError } from './CheckInputError.js';

/** Whether a file is read as JSON: by its name (`.json`), or, without a telling extension, by a leading `{` or `[`. */
export function looksLikeJson(text: string, source: string): boolean {
  if (/\.json$/i.test(source)) return true;
  if (/\.ya?ml$/i.test(source)) return false;
  return /^\s*[{[]/.test(text);
}

/**
 * How many aliases (`*name`) a YAML document may use. Each alias copies what it names, so a few
 * lines of nested aliases (a "billion laughs") expand to gigabytes; real retry configurations use
 * a handful.
 */
export const MAX_YAML_ALIASES = 100;

/**
 * The offset of the first key of a YAML map that repeats an earlier key of the same map, by the
 * rule the YAML library's own `uniqueKeys` applies (scalars by value, other nodes by identity),
 * with a set per map: the library's check compares each key with every earlier one, which takes
 * minutes on a map of a hundred thousand keys.
 */
function firstDuplicateKey(doc: Document): number | undefined {
  let found: number | undefined;
  visit(doc, {
    Map(_, map) {
      const seen = new Set<unknown>();
      for (const pair of map.items) {
        const key = pair.key;
        if (!isScalar(key)) continue;
        if (seen.has(key.value)) {
          found = key.range?.[0] ?? 0;
          return visit.BREAK;
        }
        seen.add(key.value);
      }
      return undefined;
    },
  });
  return found;
}

/** Whether a value nests arrays and objects deeper than MAX_NESTING levels (walked without recursion). */
function nestsTooDeep(root: unknown): boolean {
  const stack: Array<{ value: unknown; depth: number }> = [{ value: root, depth: 0 }];
  while (stack.length > 0) {
    const { value, depth } = stack.pop() as { value: unknown; depth: number };
    if (value === null || typeof value !== 'object') continue;
    if (depth + 1 > MAX_NESTING) return true;
    for (const v of Object.values(value)) stack.push({ value: v, depth: depth + 1 });
  }
  return false;
}

/**
 * The value of a JSON or YAML document (JSON for `.json` files; YAML 1.2, a superset of JSON,
 * otherwise). Syntax errors throw a CheckInputError naming the file, the line and the column:
 * `route.yaml: invalid YAML at line 3, column 1: ...`. A document nested deeper than MAX_NESTING
 * levels, or a YAML document with more than {@link MAX_YAML_ALIASES} aliases, is refused the same way.
 */
export function readDocument(text: string, source: string): unknown {
  if (looksLikeJson(text, source)) {
    const json = parseJson(text, source);
    if (!json.ok) throw new CheckInputError([json.error]);
    return json.value;
  }
  let doc;
  const lines = new LineCounter();
  try {
    doc = parseDocument(text, { prettyErrors: true, uniqueKeys: false, lineCounter: lines });
  } catch (e) {
    if (e instanceof RangeError) throw new CheckInputError([`${source}: nested too deep: the YAML reader runs out of stack`]);
    throw e;
  }
  const error = doc.errors[0];
  if (error !== undefined) {
    const pos = error.linePos?.[0];
    const where = pos === undefined ? '' : ` at line ${pos.line}, column ${pos.col}`;
    const reason = error.message.split('\n')[0]?.replace(/ at line \d+, column \d+:?$/, '') ?? error.message;
    // The parser reports running out of stack on deep nesting (below MAX_NESTING levels of flow
    // collections) as a syntax error of its own.
    if (/Maximum call stack size exceeded/.test(reason)) throw new CheckInputError([`${source}: nested too deep${where}: the YAML reader runs out of stack there`]);
    throw new CheckInputError([`${source}: invalid YAML${where}: ${describeParserMessage(reason)}`]);
  }
  const duplicate = firstDuplicateKey(doc);
  if (duplicate !== undefined) {
    const pos = lines.linePos(duplicate);
    throw new CheckInputError([`${source}: invalid YAML at line ${pos.line}, column ${pos.col}: Map keys must be unique`]);
  }
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: MAX_YAML_ALIASES }) as unknown;
  } catch (e) {
    if (e instanceof RangeError) throw new CheckInputError([tooDeepMessage(source)]);
    if (e instanceof ReferenceError && /alias/i.test(e.message)) {
      throw new CheckInputError([`${source}: too many YAML aliases: a document may use at most ${MAX_YAML_ALIASES} (each alias copies what it names)`]);
    }
    throw e;
  }
  if (nestsTooDeep(value)) throw new CheckInputError([tooDeepMessage(source)]);
  return value;
}
