import { existsSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { UsageError } from './io.js';
import { RUN_FILE } from '../sweep/ResultReader.js';

/**
 * Where a command that writes an experiment's output directory (`run`, `run-all`, `tune`, `merge`)
 * writes, so that a finished run is never lost to a new one: a directory that holds a finished run
 * (any of `finishedFiles`) is refused unless `--replace` (or `--resume`, which keeps its records)
 * is given; with `--replace` the new run is written beside it, in `.<name>.replacing/`, and takes
 * its place only once complete ({@link commitOutput}). Until then the finished run stays whole,
 * whatever stops the new one (Ctrl-C, a kill, a full disk).
 */
export interface OutputPlan {
  /** The directory the results end up in. */
  final: string;
  /** Where the command writes now: `final`, or the directory beside it that will replace it. */
  work: string;
  /** Whether `work` replaces a finished run when complete. */
  staged: boolean;
}

/** The directory a replacement is written in, beside the one it replaces. */
export function stagingDirOf(final: string): string {
  return join(dirname(final), `.${basename(final)}.replacing`);
}

/** Where the replaced run is moved for the moment of the swap. */
function replacedDirOf(final: string): string {
  return join(dirname(final), `.${basename(final)}.replaced`);
}

/**
 * Finish or undo a swap that a kill interrupted ({@link commitOutput}'s two renames): with the old
 * run moved aside and `final` missing, the complete replacement is moved in (or, if there is none,
 * the old run back); with `final` in place, the old run is removed. Called under the directory's lock.
 */
export function recoverSwap(final: string): void {
  const replaced = replacedDirOf(final);
  if (!existsSync(replaced)) return;
  if (!existsSync(final)) {
    const staging = stagingDirOf(final);
    renameSync(existsSync(staging) ? staging : replaced, final);
  }
  rmSync(replaced, { recursive: true, force: true });
}

/** What an output directory holds: a run's replications (`run`, `merge`) or risk estimates (`risk`). */
export type OutputKind = 'run' | 'risk';

const KIND_WORDS: Readonly<Record<OutputKind, string>> = { run: "a run's results", risk: 'risk estimates' };

/** The kind of output a directory's manifest (run.json) says it holds, or null without a readable one. */
function heldKind(dir: string): OutputKind | null {
  try {
    const m = JSON.parse(readFileSync(join(dir, RUN_FILE), 'utf8')) as { kind?: unknown };
    return m !== null && typeof m === 'object' && m.kind === 'risk' ? 'risk' : 'run';
  } catch {
    return null;
  }
}

/**
 * Decide where a command writes `final` (shown in messages as `shown`). A directory holding a
 * finished run is refused (a UsageError naming the files that would be replaced) unless `replace`
 * (write beside it, swap when complete) or `resume` (keep its records; with `replace`, resume the
 * replacement in progress) is set. With `kind`, a directory holding the other kind of output
 * (run.json's `kind`) is refused whatever the flags. Call it holding the directory's lock.
 */
export function planOutput(
  final: string,
  shown: string,
  finishedFiles: readonly string[],
  opts: { replace: boolean; resume: boolean; kind?: OutputKind },
): OutputPlan {
  recoverSwap(final);
  if (opts.kind !== undefined) {
    const held = heldKind(final);
    if (held !== null && held !== opts.kind) throw new UsageError([`${shown} holds ${KIND_WORDS[held]}, not ${KIND_WORDS[opts.kind]}: choose another --out (neither is written over the other)`]);
  }
  const present = finishedFiles.filter((f) => isFile(join(final, f)));
  if (present.length === 0 || (opts.resume && !opts.replace)) return { final, work: final, staged: false };
  if (!opts.replace) {
    throw new UsageError([
      `${shown} holds a finished run (${present.join(', ')}): --replace runs again and replaces it only once the new run is complete, --resume keeps its replications and runs only what is missing, or choose another --out`,
    ]);
  }
  const work = stagingDirOf(final);
  // A replacement that was interrupted and is not resumed starts again from nothing.
  if (!opts.resume) rmSync(work, { recursive: true, force: true });
  return { final, work, staged: true };
}

/**
 * Put a complete replacement in place of the finished run: the old directory is moved aside, the
 * new one renamed to its name, then the old one removed (a kill between the renames is repaired by
 * {@link recoverSwap} on the next command). `step` is called before each step (tests stop there).
 */
export function commitOutput(plan: OutputPlan, step: (name: 'move-old' | 'move-new' | 'remove-old') => void = () => {}): void {
  if (!plan.staged) return;
  const replaced = replacedDirOf(plan.final);
  rmSync(replaced, { recursive: true, force: true });
  step('move-old');
  if (existsSync(plan.final)) renameSync(plan.final, replaced);
  step('move-new');
  renameSync(plan.work, plan.final);
  step('remove-old');
  rmSync(replaced, { recursive: true, force: true });
}

/** Whether a path is a regular file (a directory in the way of one is not a finished run's file). */
function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}
