/**
 * The model as a rare-event system: a scenario's run watched by the probes a risk section names
 * (importance and collapse), snapshotted and continued for multilevel splitting (src/risk), and one
 * cell's estimate of P(collapse within the horizon). Pure: no files, process or console.
 */
export { estimateCellRisk, RiskInputError } from './estimateCellRisk.js';
export { DEFAULT_RISK_METHOD } from '../experiment/riskSchema.js';
export type { CellRisk, CellRiskOptions } from './estimateCellRisk.js';
export { riskProblems } from './riskProblems.js';
export { checkMemoryCeiling, ModelSystem, RiskMemoryError, RiskStopped, STATELESS_FUNCTIONS } from './modelSystem.js';
export { ADAPTIVE_SNAPSHOTS_PER_PARTICLE, riskCopiesAtOnce } from './copiesAtOnce.js';
export type { CopiesAtOnce } from './copiesAtOnce.js';
export type { ModelState, ModelSystemOptions } from './modelSystem.js';
export { EXAMPLE_POINTS } from './RiskMonitor.js';
export type { ExampleTrajectory } from './RiskMonitor.js';
export { EMPTY_WINDOW_VALUE } from './probes.js';
