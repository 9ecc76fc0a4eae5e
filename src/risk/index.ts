/**
 * Rare-event estimation: P(collapse within the horizon) by multilevel splitting on snapshots of a
 * run, against the narrow {@link SplittableSystem} interface a simulator implements. Pure: no files,
 * process or console.
 */
export { adaptiveSplitting } from './adaptiveSplitting.js';
export type { AdaptiveSplittingOptions, SnapshotKeeping } from './adaptiveSplitting.js';
export { fixedLevelSplitting } from './fixedLevelSplitting.js';
export type { FixedLevelSplittingOptions } from './fixedLevelSplitting.js';
export { DEFAULT_CHECK_TRIES, systemProblems } from './checkSystem.js';
export type { SystemCheckOptions } from './checkSystem.js';
export { plainMonteCarlo } from './monteCarlo.js';
export type { MonteCarloEstimate, MonteCarloOptions } from './monteCarlo.js';
export { monteCarloRunsFor } from './riskEstimate.js';
export type { PyramidLevel, Repetition, RiskEstimate } from './riskEstimate.js';
export type { Effort } from './Brancher.js';
export {
  DEFAULT_IMPORTANCE_STEP,
  DEFAULT_KILL_COUNT,
  DEFAULT_MAX_ITERATIONS,
  DEFAULT_PARTICLES,
  DEFAULT_REPETITIONS,
  DEFAULT_SNAPSHOT_KEEPING,
  MIN_PARTICLES,
  MIN_REPETITIONS,
} from './riskOptions.js';
export type { EstimateOptions } from './riskOptions.js';
export { branchSeed, startSeed } from './SplittableSystem.js';
export type { Advanced, BranchStreams, Continuation, SplittableSystem, StopReason } from './SplittableSystem.js';
