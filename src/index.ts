/**
 * retrystorm: a discrete-event simulator of retry storms and cascading failure.
 * The library API: run scenarios, estimate the probability of a collapse, trace one operation, use the pure policy functions, and run the
 * simulated policy for real (`retry`, `retryingFetch`).
 */
export { simulate, type SimulateOptions } from './simulate.js';
export { estimateRisk, estimateExperimentRisk, parseRisk, type EstimateRiskOptions, type CellRiskEstimate } from './estimateRisk.js';
export type { CellRisk } from './riskModel/index.js';
export type { RiskSection } from './experiment/riskSchema.js';
export { traceOperation, type TraceResult, type TraceLayerSummary } from './model/traceOperation.js';
export type { TraceEvent } from './model/trace.js';
export type { SimulationResults, LatencySummary, LayerAttempts } from './model/results.js';
export type * from './model/scenario.js';
export { Model, type ModelOptions } from './model/Model.js';
export {
  expandExperiment,
  parseExperimentText,
  parseScenario,
  parseScript,
  ValidationError,
  type Cell,
  type ExperimentPlan,
} from './experiment/index.js';
export * as policy from './policy/index.js';
export { makeRetryBudget, makeAdmissionControl, makeBudgetChain, describePresets, presetPolicy, PRESET_NAMES } from './policy/index.js';
export * from './executor/index.js';
export { VERSION } from './version.js';
