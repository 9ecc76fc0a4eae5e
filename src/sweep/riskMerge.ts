// The shards of one `retrystorm risk` run combined into one result, as `merge` does for a run.
import { toJson } from './json.js';
import { checkShards, MergeError } from './merge.js';
import { isRunDir, readRiskDir, RUN_FILE } from './ResultReader.js';
import { ResultWriter } from './ResultWriter.js';
import { RISK_CSV_FILE, RISK_RESULT_FILE, riskCsv, type RiskRecord } from './riskRecord.js';
import { planRiskGaps, planRiskParts, RISK_FILES, riskResult, type RiskResult } from './riskSweep.js';
import { planCells } from './runPlan.js';
import { shardCells, type RunManifest } from './runSweep.js';
import { shownPath } from './fileErrors.js';

/**
 * Combine the output directories of the shards of one risk run into one risk.jsonl, risk.json and
 * risk.csv, identical to an unsharded run's (but for the measured CPU time). Refuses shards of
 * another experiment file, seed, version or overrides, a missing or repeated shard, and a shard
 * whose cells are not all estimated.
 */
export function mergeRiskDirs(dirs: string[], out: (experiment: string) => string): { result: RiskResult; outDir: string; quick: boolean } {
  if (dirs.length === 0) throw new MergeError('merge needs at least one directory');
  const runs = dirs.map((d) => {
    if (!isRunDir(d)) throw new MergeError(`${shownPath(d)}: not a retrystorm run directory (no ${RUN_FILE})`);
    return { dir: d, ...readRiskDir(d) };
  });
  const { first, plan, count } = checkShards(runs);
  const gaps = planRiskGaps(plan);
  if (gaps.length > 0) throw new MergeError(`${first.dir}/${RUN_FILE}: its source ${gaps.join('; ')}`);
  const records = new Map<string, RiskRecord>();
  for (const r of runs) {
    const mine = shardCells(planCells(plan), count > 1 ? (r.manifest.shard ?? undefined) : undefined).map((c) => c.cell.key);
    const have = new Map(r.records.filter((rec) => rec.state === 'ok').map((rec) => [rec.key, rec]));
    const missing = mine.filter((k) => !have.has(k));
    if (missing.length > 0) {
      const bad = r.problems.map((p) => `\n  ${r.dir}/${p}`).join('');
      throw new MergeError(`${r.dir} is incomplete: ${mine.length - missing.length} of ${mine.length} cells estimated (finish it with risk --resume)${bad}`);
    }
    for (const k of mine) records.set(k, have.get(k) as RiskRecord);
  }
  const cells = shardCells(planCells(plan), undefined).map((c) => c.cell);
  const result = riskResult(plan, planRiskParts(plan), cells, records);
  const manifest: RunManifest = { ...first.manifest, shard: null };
  const outDir = out(plan.name);
  const writer = new ResultWriter(outDir, RISK_FILES);
  writer.start(toJson(manifest, 2), result.cells.map(({ horizonMs: _, ...rec }) => rec));
  writer.writeJsonFile(RISK_RESULT_FILE, result, 2);
  writer.writeFile(RISK_CSV_FILE, riskCsv(result.cells));
  writer.close();
  return { result, outDir, quick: first.manifest.quick };
}
