/**
 * Experiment files: their schema, validation with path-precise messages, overrides, and the
 * expansion of an experiment into cells (docs/experiments.md, "Experiment files").
 */
export { resolveDescription, resolveDescriptions, resolvedOrAsWritten, PLACEHOLDER_PATTERN, PLACEHOLDER_UNITS, valueAtDottedPath, type ResolvedText } from './descriptionText.js';
export { canonicalJson } from './canonicalJson.js';
export type { Experiment, ExperimentPartSummary } from './Experiment.js';
export {
  DEFAULT_VARIANT,
  expandExperiment,
  MAIN_PART,
  PART_INHERITED_FIELDS,
  patchedRoot,
  PRECEDENCE,
  type Cell,
  type ExpandOptions,
  type ExpandResult,
  type ExperimentPlan,
  type PlanPart,
  type SelectorUse,
} from './expandExperiment.js';
export { EVERY_LAYER, isLayerSelector, matchLayerSelector, parseLayerSelector, resolvePathKey, SELECTOR_WORD, writtenLayerNames, writtenStacks, type LayerSelector, type ResolvedPath, type SelectorMatch, type WrittenStack } from './layerSelector.js';
export { experimentJsonSchema } from './experimentJsonSchema.js';
export { experimentFileSchema, experimentSchema, SCHEMA_VERSION, SLUG } from './experimentSchema.js';
export { parseExperiment, parseExperimentText, validateExperiment, type ParseExperimentResult } from './parseExperiment.js';
export { setTargetOf, type SetTarget } from './interventionSchema.js';
export { listSome, MAX_LISTED_NAMES } from './listSome.js';
export { parseJson } from './parseJson.js';
export { parseScript, readScript, MAX_SCRIPT_MS, MAX_SCRIPT_REPEAT, SCRIPT_STATUSES, type ScriptEntryProblem } from './parseScript.js';
export { parseSetArg } from './parseSetArg.js';
export {
  ADMISSION_KIND_NAMES,
  admissionSchema,
  backoffSchema,
  BUDGET_KIND_NAMES,
  budgetSchema,
  DEFAULT_HEDGE_NON_FATAL,
  POLICY_FIELD_NAMES,
} from '../policy/schema/policySchema.js';
export { formatPath, problemMessage, type PathSegment, type Problem } from './Problem.js';
export { replicationSeed } from './replicationSeed.js';
export { parseScenario, resolveScenario, type ResolveScenarioResult } from './resolveScenario.js';
export {
  BACKOFF_KINDS,
  DEFAULT_RETRY_ON,
  METHODS,
  policySchema,
  rateSchema,
  RETRY_AFTER_MODES,
  RETRY_ON_CLASSES,
  scenarioSchema,
  stackSchema,
  workloadSchema,
} from './scenarioSchema.js';
export { DIST_KINDS, distSchema, INF_BOUND } from './distSchema.js';
export { leafSchema } from './leafSchema.js';
export { cloneJson, mergeValue, setPath, splitExperimentPath, splitPath, type PathInput } from './setPath.js';
export { ValidationError } from './ValidationError.js';
export {
  DEFAULT_TUNE_CANDIDATES,
  DEFAULT_TUNE_MAX_RUNS,
  tuneSchema,
  type TuneConstraint,
  type TuneDimension,
  type TuneObjective,
  type TuneSection,
} from './tuneSchema.js';
