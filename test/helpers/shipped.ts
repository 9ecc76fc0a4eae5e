import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { expandExperiment, parseExperimentText, type ExperimentPlan } from '../../src/experiment/index.js';
import type { SweepSummary } from '../../src/sweep/runPlan.js';
import { runSweep } from '../../src/sweep/runSweep.js';
import { VERSION } from '../../src/version.js';

/** A shipped experiment file expanded by the real loader (quick mode unless told otherwise). */
export function shippedPlan(file: string, quick = true, set: Array<[string, unknown]> = []): ExperimentPlan {
  const parsed = parseExperimentText(readFileSync(file, 'utf8'), file);
  if (!parsed.ok) throw new Error(parsed.errors.join('\n'));
  const expanded = expandExperiment(parsed.experiment, { quick, set });
  if (!expanded.ok) throw new Error(expanded.errors.join('\n'));
  return expanded.plan;
}

/** A shipped experiment file in quick mode, run by the real sweep on 2 workers into `dir`. */
export async function runShipped(file: string, dir: string): Promise<SweepSummary> {
  const text = readFileSync(file, 'utf8');
  const plan = shippedPlan(file);
  const sha = createHash('sha256').update(text).digest('hex');
  const res = await runSweep(plan, {
    outDir: dir,
    workers: 2,
    manifest: { experiment: plan.name, seed: plan.seed, version: VERSION, sourceSha256: sha, source: text, quick: true, set: [] },
  });
  if (res.summary === null || res.errored.length > 0) throw new Error(`sweep failed: ${JSON.stringify(res.errored)}`);
  return res.summary;
}
