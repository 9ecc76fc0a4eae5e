/**
 * The policy schema of experiment files is the one validator of a policy, shared with `retry()`
 * and `retryingFetch` (src/policy/schema/policySchema.ts).
 */
export {
  ADMISSION_KIND_NAMES,
  admissionSchema,
  BACKOFF_KINDS,
  backoffSchema,
  BUDGET_KIND_NAMES,
  budgetSchema,
  DEFAULT_HEDGE_NON_FATAL,
  DEFAULT_RETRY_ON,
  POLICY_FIELD_NAMES,
  policySchema,
  RETRY_AFTER_MODES,
  RETRY_ON_CLASSES,
} from '../policy/schema/policySchema.js';
