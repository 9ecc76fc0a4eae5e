import type { z } from 'zod';
import { UNKNOWN_KEYS_MARK } from './fields.js';
import type { PathSegment, Problem } from './Problem.js';

type Issue = z.core.$ZodIssue;

function unknownKeyProblems(issue: Issue & { code: 'unrecognized_keys' }, path: PathSegment[]): Problem[] {
  let pairs: Array<[string, string | null]>;
  if (issue.message.startsWith(UNKNOWN_KEYS_MARK)) {
    pairs = JSON.parse(issue.message.slice(UNKNOWN_KEYS_MARK.length)) as Array<[string, string | null]>;
  } else {
    pairs = issue.keys.map((key) => [key, null]);
  }
  return pairs.map(([key, suggestion]) =>
    key === ''
      ? // An empty key would print as a path ending in "."; name it instead.
        { path, text: 'has a field with an empty name ("")' }
      : {
          path: [...path, key],
          text: suggestion === null ? 'is not a known field' : `is not a known field (did you mean "${suggestion}"?)`,
        },
  );
}

/** A union branch that failed only because the input is not of its type at all. */
function isTypeMismatch(branch: readonly Issue[]): boolean {
  return branch.every((issue) => issue.path.length === 0 && (issue.code === 'invalid_type' || issue.code === 'invalid_value'));
}

function relatedPaths(issue: Issue, path: PathSegment[]): PathSegment[][] | undefined {
  if (issue.code !== 'custom') return undefined;
  const params = issue.params as { related?: PathSegment[][]; depth?: number } | undefined;
  if (params?.related === undefined) return undefined;
  const base = path.slice(0, path.length - (params.depth ?? 1));
  return params.related.map((rel) => [...base, ...rel]);
}

/**
 * Turns zod issues (from schemas built with `fields`) into problems with paths from `prefix`:
 * one problem per unknown key; for a union, the problems of the one alternative the input was
 * meant to be (the only one whose type matches), or the union's own message when the input
 * matches none or several; for checks between fields, the related paths they carry
 * (`params.related`, relative to the object `params.depth` segments above the issue).
 */
export function zodProblems(issues: readonly Issue[], prefix: readonly PathSegment[] = []): Problem[] {
  const problems: Problem[] = [];
  for (const issue of issues) {
    const path: PathSegment[] = [...prefix, ...(issue.path as PathSegment[])];
    if (issue.code === 'unrecognized_keys') {
      problems.push(...unknownKeyProblems(issue, path));
      continue;
    }
    if (issue.code === 'invalid_union' && !('discriminator' in issue && issue.discriminator !== undefined)) {
      const candidates = issue.errors.filter((branch) => !isTypeMismatch(branch));
      const only = candidates[0];
      if (candidates.length === 1 && only !== undefined) {
        problems.push(...zodProblems(only, path));
        continue;
      }
    }
    const related = relatedPaths(issue, path);
    problems.push(related === undefined ? { path, text: issue.message } : { path, text: issue.message, related });
  }
  return problems;
}
