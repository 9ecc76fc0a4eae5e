// Reading an experiment file into a plan for the commands (run, run-all, validate, tune): the file's
// problems as a UsageError naming the file, --set overrides, quick mode and the report hints.
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { expandExperiment, parseExperimentText, parseSetArg, type ExperimentPlan } from '../experiment/index.js';
import { parseReportHints } from '../report/reportHints.js';
import { UsageError, type CliIO } from './io.js';
import { readExperimentText, type ReadOptions } from './readInput.js';

/** Read and validate an experiment file, or throw a UsageError naming the file and each problem. */
export function loadExperimentFile(path: string, options: ReadOptions = {}) {
  return loadExperimentSource(path, options).experiment;
}

/** Read and validate an experiment file, keeping its text (for the run manifest; imported layers resolved, see readExperimentText). */
export function loadExperimentSource(path: string, options: ReadOptions = {}) {
  const read = readExperimentText(path, options);
  if (!read.ok) throw new UsageError(read.errors);
  const { text } = read;
  const parsed = parseExperimentText(text, path);
  if (!parsed.ok) throw new UsageError(parsed.errors);
  return { experiment: parsed.experiment, text };
}

/**
 * `run-all`'s split of experiment files by a section (`tune`, `risk`): those without it, and those
 * with it (`has`), each of the latter checked now by `problems` (its problems, or a UsageError), so
 * that every problem is reported before anything runs, all at once. A file that cannot be read
 * goes with those without: the run's validation reports it.
 */
export function splitBySection(
  files: readonly string[],
  read: ReadOptions,
  has: (root: Readonly<Record<string, unknown>>) => boolean,
  problems: (file: string) => string[],
): { without: string[]; with: string[] } {
  const without: string[] = [];
  const withSection: string[] = [];
  const found: string[] = [];
  for (const f of files) {
    let section = false;
    try {
      section = has(loadExperimentSource(f, read).experiment.root);
    } catch {
      /* an invalid file: the run's validation reports it */
    }
    if (!section) {
      without.push(f);
      continue;
    }
    withSection.push(f);
    try {
      found.push(...problems(f));
    } catch (e) {
      if (!(e instanceof UsageError)) throw e;
      found.push(...e.problems);
    }
  }
  if (found.length > 0) throw new UsageError(found);
  return { without, with: withSection };
}

/** A file's experiment name, or nothing when the file cannot be read (its run's validation reports that). */
export function experimentName(file: string, read: ReadOptions = {}): Array<{ file: string; name: string }> {
  try {
    const { name } = loadExperimentSource(file, read).experiment.root;
    return typeof name === 'string' ? [{ file, name }] : [];
  } catch {
    return [];
  }
}

function parseSets(sets: string[]): Array<[string, unknown]> {
  return sets.map((s) => {
    try {
      return parseSetArg(s);
    } catch (e) {
      throw new UsageError([(e as Error).message]);
    }
  });
}

/** Load, apply quick mode and --set, expand into cells; a UsageError on any problem. */
export function planFromFile(path: string, opts: PlanOptions): ExperimentPlan {
  return loadPlan(path, opts).plan;
}

/** Prints the warnings of a loaded experiment (allowed, but likely mistakes) on stderr. */
export function printWarnings(io: CliIO, warnings: readonly string[]): void {
  for (const w of warnings) io.stderr(`warning: ${w}\n`);
}

/** How an experiment file becomes a plan: quick mode, `--set` overrides, the seed, and how its imports are read. */
export interface PlanOptions extends ReadOptions {
  quick: boolean;
  set: string[];
  seed?: number;
}

/** Load, apply quick mode, --set and the seed, expand into cells; the plan, the file's text, the overrides, the warnings and the layer selectors' matches (a UsageError on any problem). */
export function loadPlan(path: string, opts: PlanOptions) {
  const { experiment, text } = loadExperimentSource(path, opts);
  const set = parseSets(opts.set);
  if (opts.seed !== undefined) set.push(['seed', opts.seed]);
  const expanded = expandExperiment(experiment, { quick: opts.quick, set });
  if (!expanded.ok) throw new UsageError(expanded.errors.map((m) => `${path}: ${m}`));
  const hintProblems = reportHintProblems(experiment.root);
  if (hintProblems.length > 0) throw new UsageError(hintProblems.map((m) => `${path}: ${m}`));
  return { plan: expanded.plan, text, set, experiment, warnings: expanded.warnings.map((w) => `${path}: ${w}`), selectors: expanded.selectors };
}

/** Problems with the `report` hints of an experiment file (top level and each part), with their paths. */
function reportHintProblems(root: unknown): string[] {
  const r = root as { report?: unknown; parts?: Array<{ report?: unknown }> };
  const problems: string[] = [];
  if (r.report !== undefined) {
    const p = parseReportHints(r.report, 'report');
    if (!p.ok) problems.push(...p.errors);
  }
  (r.parts ?? []).forEach((part, i) => {
    if (part.report === undefined) return;
    const p = parseReportHints(part.report, `parts.${i}.report`);
    if (!p.ok) problems.push(...p.errors);
  });
  return problems;
}

/** Experiment files (*.json except schema.json) under a directory, sorted. */
export function findExperimentFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const name of readdirSync(d).sort()) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (name.endsWith('.json') && name !== 'schema.json') out.push(p);
    }
  };
  walk(dir);
  return out;
}
