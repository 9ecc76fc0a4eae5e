import { expandExperiment, parseExperimentText, SLUG, type ExperimentPlan } from '../experiment/index.js';
import { toJson } from './json.js';
import { ResultWriter } from './ResultWriter.js';
import { isInterruptedRecord, planCells, type ReplicationRecord, type SweepSummary } from './runPlan.js';
import { isRunDir, readRunDir, RUN_FILE } from './ResultReader.js';
import { buildSummary, sameManifest, shardCells, type RunManifest } from './runSweep.js';
import { summaryCsv } from './csv.js';
import { shownPath } from './fileErrors.js';

/** A merge that cannot be done: different experiments, missing or incomplete shards. */
export class MergeError extends Error {}

/**
 * The plan the shards of one run were made from, once they are checked to belong together: same
 * experiment file, seed, version, overrides and kind, every shard of the count once; the plan
 * expanded again from the first one's manifest. A MergeError says what is wrong.
 */
export function checkShards<R extends { dir: string; manifest: RunManifest }>(runs: readonly R[]): { first: R; plan: ExperimentPlan; count: number } {
  const first = runs[0] as (typeof runs)[number];
  for (const r of runs.slice(1)) {
    const why = sameManifest(first.manifest, r.manifest);
    if (why) throw new MergeError(`${r.dir} does not belong with ${first.dir}: ${why}`);
  }
  const count = first.manifest.shard?.count ?? 1;
  const seen = new Map<number, string>();
  for (const r of runs) {
    const s = r.manifest.shard ?? { index: 0, count: 1 };
    if (s.count !== count) throw new MergeError(`${r.dir} is shard ${s.index}/${s.count}, but ${first.dir} is one of ${count}`);
    const other = seen.get(s.index);
    if (other) throw new MergeError(`${r.dir} and ${other} are both shard ${s.index}/${count}`);
    seen.set(s.index, r.dir);
  }
  const missing = Array.from({ length: count }, (_, i) => i).filter((i) => !seen.has(i));
  if (missing.length > 0) throw new MergeError(`missing shard${missing.length > 1 ? 's' : ''} ${missing.map((i) => `${i}/${count}`).join(', ')}`);

  const named = first.manifest.experiment;
  if (typeof named !== 'string' || !SLUG.test(named)) {
    throw new MergeError(`${first.dir}/${RUN_FILE}: experiment must be an experiment name (lowercase letters, digits, ".", "_", "-"; got ${JSON.stringify(named)})`);
  }
  if (typeof first.manifest.source !== 'string') throw new MergeError(`${first.dir}/${RUN_FILE}: source must be the experiment file's text`);
  const parsed = parseExperimentText(first.manifest.source, `${first.dir}/${RUN_FILE} source`);
  if (!parsed.ok) throw new MergeError(parsed.errors.join('\n'));
  if (parsed.experiment.name !== named) {
    throw new MergeError(`${first.dir}/${RUN_FILE}: experiment ${JSON.stringify(named)} is not the name in its source (${JSON.stringify(parsed.experiment.name)})`);
  }
  const expanded = expandExperiment(parsed.experiment, { quick: first.manifest.quick, set: first.manifest.set });
  if (!expanded.ok) throw new MergeError(expanded.errors.join('\n'));
  return { first, plan: expanded.plan, count };
}

/**
 * Combine the output directories of the shards of one sweep into one summary, identical to the
 * summary of an unsharded run. Refuses shards of a different experiment file, seed, version or
 * overrides, a missing or repeated shard, and a shard whose replications are not all done.
 */
export function mergeRunDirs(
  dirs: string[],
  out: string | ((experiment: string) => string),
): { summary: SweepSummary; plan: ExperimentPlan; outDir: string } {
  if (dirs.length === 0) throw new MergeError('merge needs at least one directory');
  const runs = dirs.map((d) => {
    if (!isRunDir(d)) throw new MergeError(`${shownPath(d)}: not a retrystorm run directory (no ${RUN_FILE})`);
    return { dir: d, ...readRunDir(d) };
  });
  const { first, plan, count } = checkShards(runs);
  const cells = shardCells(planCells(plan), undefined);
  const records = new Map<string, ReplicationRecord>();
  for (const r of runs) {
    const s = r.manifest.shard ?? { index: 0, count: 1 };
    const mine = shardCells(planCells(plan), count > 1 ? s : undefined);
    const have = new Map<string, ReplicationRecord>();
    for (const rec of r.records) if (!isInterruptedRecord(rec)) have.set(`${rec.replication}\u0000${rec.key}`, rec);
    let done = 0;
    let want = 0;
    for (const { cell, replications } of mine) {
      for (let i = 0; i < replications; i++) {
        want++;
        const rec = have.get(`${i}\u0000${cell.key}`);
        if (rec) {
          done++;
          records.set(`${i}\u0000${cell.key}`, rec);
        }
      }
    }
    if (done < want) {
      const bad = r.problems.map((p) => `\n  ${r.dir}/${p}`).join('');
      throw new MergeError(`${r.dir} is incomplete: ${done} of ${want} replications (finish it with --resume)${bad}`);
    }
  }
  const summary = buildSummary(plan, cells, records);
  const manifest: RunManifest = { ...first.manifest, shard: null };
  // The output directory is named only after the name checked above.
  const outDir = typeof out === 'string' ? out : out(plan.name);
  const writer = new ResultWriter(outDir);
  const lines = cells.flatMap(({ cell, replications }) =>
    Array.from({ length: replications }, (_, i) => records.get(`${i}\u0000${cell.key}`)).filter((x): x is ReplicationRecord => !!x),
  );
  writer.start(toJson(manifest, 2), lines);
  writer.writeJsonFile('summary.json', summary, 2);
  writer.writeFile('summary.csv', summaryCsv(summary));
  writer.close();
  return { summary, plan, outDir };
}
