/** What an experiment part expands to, in brief (the cells of normal mode). */
export interface ExperimentPartSummary {
  /** The part's name, or `main` for an experiment without parts. */
  name: string;
  description: string;
  replications: number;
  /** Variant names in file order (`default` without variants). */
  variants: string[];
  /** Sweep axes: grid axes in file order, then zip axes. */
  axes: string[];
  /** Number of cells (sweep points x variants). */
  cells: number;
}

/**
 * A validated experiment file. It keeps the file's root object as written, because quick mode
 * and `--set` patch the root before anything else; `expandExperiment` turns it into cells.
 */
export interface Experiment {
  /** The file's root object as written (never modified). */
  readonly root: Readonly<Record<string, unknown>>;
  readonly name: string;
  readonly description: string;
  readonly seed: number;
  /** True when the file (or one of its parts) has a `quick` patch. */
  readonly hasQuick: boolean;
  /** The parts of normal mode, in file order. */
  readonly parts: readonly ExperimentPartSummary[];
}
