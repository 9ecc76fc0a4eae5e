import type { z } from 'zod';
import type { PathSegment } from './Problem.js';

/**
 * Reports a rule between fields of the object being checked: `path` is the field blamed, `related`
 * the other fields involved (paths relative to the same object), so that a message can be blamed on
 * whichever of them an override set.
 */
export function between(ctx: z.RefinementCtx, path: PathSegment[], message: string, input: unknown, related: PathSegment[][]): void {
  ctx.addIssue({ code: 'custom', path, message, input, params: { related, depth: path.length } });
}
