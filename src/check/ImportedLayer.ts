import type { PolicyInput } from '../policy/presets.js';
import type { FormatFixes } from './formatFixes.js';

/** A layer read from a real configuration file. */
export interface ImportedLayer {
  /** The policy in experiment-file form (what a layer's `policy` object holds). */
  policy: PolicyInput;
  /** Where it comes from, in one line (`envoy-route.yaml: route "checkout" retry_policy`). */
  origin: string;
  /** How the configuration maps onto the model, and what the model leaves out. */
  notes: string[];
  /** A name for the layer when the stack file gives none (`grpc`, `envoy`, `aws-sdk`). */
  defaultName: string;
  /**
   * The route (or method, or policy) of a file with several that this layer was read from, as
   * `--route` names it: its name, or where it is when it has none. Absent for a file of one.
   */
  route?: string;
  /** What the file says that its tool reads another way than a reader would expect (duplicates, and which one applies). */
  warnings?: string[];
  /** The fixes of findings in the format's own terms (the lines to write), or that the format cannot express them. */
  fixes?: FormatFixes;
}

/**
 * How a note about something the file lists that the model cannot retry begins: a condition, a
 * status or an exception with no class of the model, which the imported policy therefore lacks and
 * an export cannot write back. `check --strict` and `export --strict` fail on such notes.
 */
export const LOST_NOTE_PREFIX = 'lost: ';

/** A note that the imported policy lacks what `what` names, and why (see {@link LOST_NOTE_PREFIX}). */
export function lostNote(what: string): string {
  return `${LOST_NOTE_PREFIX}${what}`;
}

/** The notes of a layer that name something its policy lost on import. */
export function lostNotes(notes: readonly string[]): string[] {
  return notes.filter((n) => n.startsWith(LOST_NOTE_PREFIX));
}
