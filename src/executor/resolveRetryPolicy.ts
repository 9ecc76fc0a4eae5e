import { compilePolicy, type CompiledPolicy } from '../policy/decision.js';
import type { PolicyInput, PresetName } from '../policy/presets.js';
import { policyAsJson } from '../policy/schema/policyAsJson.js';
import { policySchema } from '../policy/schema/policySchema.js';
import { zodProblems } from '../policy/schema/zodProblems.js';
import type { PolicySpec } from '../policy/types.js';

/**
 * A policy as experiment files write it (src/policy/schema/policySchema.ts): every field optional,
 * `preset` names a real library's policy to start from (`retrystorm presets` lists them), and
 * `backoff.capMs` may be `"none"`. An already resolved {@link PolicySpec} is accepted as is.
 */
export type RetryPolicyInput = PolicyInput & { preset?: PresetName };

/** A policy with a problem in it: one message per problem, each naming the field (`policy.backoff.capMs ...`). */
export class RetryPolicyError extends TypeError {
  override readonly name = 'RetryPolicyError';
  constructor(readonly problems: readonly string[]) {
    super(problems.join('\n'));
  }
}

/**
 * A policy resolved once (presets applied, defaults filled, validated, compiled for the decision
 * functions). Resolve a policy once and pass the result to every call to skip the work.
 */
export class ResolvedRetryPolicy {
  /**
   * @param spec every field resolved, exactly what the simulator runs with this input
   * @param compiled the numbers the decision functions of src/policy use
   * @param stateKey the budgets and admission control as canonical text: a RetryState made for one
   *   policy is accepted by another with the same budgets and admission control
   */
  constructor(
    readonly spec: PolicySpec,
    readonly compiled: CompiledPolicy,
    readonly stateKey: string,
  ) {}
}

type Json = Record<string, unknown>;

function isObject(v: unknown): v is Json {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/**
 * Fields of the policy schema that `retry()` and `retryingFetch` refuse, and why: the rule each
 * problem states. Envoy's previous_hosts predicate needs a pool of backends to choose from, and
 * they call the one target the caller gave them.
 */
const NOT_FOR_CODE: Readonly<Partial<Record<keyof PolicySpec, string>>> = {
  retryHostPredicate: 'is not supported by retry() and retryingFetch (it chooses among the backends of a pool; they call one target)',
};

/**
 * Resolves a policy written as in experiment files into the {@link PolicySpec} the simulator runs,
 * with the experiment files' own policy schema (src/policy/schema/policySchema.ts): a known
 * `preset` is the base and the other fields deep-merge over it, a policy with `hedging` and no
 * `maxAttempts` gets 1, then the defaults fill the rest. The spelling of code differs from JSON's
 * only as `policyAsJson` (src/policy/schema/policyAsJson.ts) says (`undefined` is absent,
 * `capMs: Infinity` is `"none"`), so a resolved PolicySpec resolves to itself; the fields of
 * `NOT_FOR_CODE` (`retryHostPredicate`) are refused. Throws a
 * {@link RetryPolicyError} listing every problem, each naming its field from `path` and the rule
 * (`policy.backoff.capMs must be >= baseMs (got 10 < 50)`).
 */
export function resolvePolicySpec(input: RetryPolicyInput | PolicySpec, path = 'policy'): PolicySpec {
  const written = policyAsJson(input);
  const problems: string[] = [];
  if (isObject(written)) {
    for (const [field, rule] of Object.entries(NOT_FOR_CODE)) if (written[field] !== undefined) problems.push(`${path}.${field} ${rule}`);
  }
  const read = policySchema.safeParse(written);
  if (!read.success) {
    for (const p of zodProblems(read.error.issues, [path])) problems.push(`${p.path.join('.')} ${p.text}`);
  }
  if (problems.length > 0 || !read.success) throw new RetryPolicyError(problems);
  return read.data;
}

/** The budgets and admission control of a policy as canonical text (what a RetryState is made of). */
function stateKeyOf(spec: PolicySpec): string {
  const sorted = (v: unknown): unknown =>
    isObject(v) ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, sorted(v[k])])) : Array.isArray(v) ? v.map(sorted) : v;
  return JSON.stringify(sorted({ budget: spec.budget ?? [], admission: spec.admission ?? null }));
}

/**
 * Resolves (see {@link resolvePolicySpec}) and compiles a policy once; a policy already resolved is
 * returned as is.
 */
export function resolveRetryPolicy(input: RetryPolicyInput | PolicySpec | ResolvedRetryPolicy): ResolvedRetryPolicy {
  if (input instanceof ResolvedRetryPolicy) return input;
  const spec = resolvePolicySpec(input);
  return new ResolvedRetryPolicy(spec, compilePolicy(spec), stateKeyOf(spec));
}
