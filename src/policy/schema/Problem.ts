/** One segment of a path into a JSON document: an object key or an array index. */
export type PathSegment = string | number;

/**
 * One validation problem before it is printed: where (`path`, from the root of the document that
 * was validated), what (`text`, the rule and the offending value, e.g. `must be > 0 (got -5)`),
 * and which other fields took part in a rule between fields (`related`, e.g. `baseMs` for
 * `capMs must be >= baseMs`), so the problem can be blamed on whichever of them an override set.
 */
export interface Problem {
  path: PathSegment[];
  text: string;
  related?: PathSegment[][];
}
