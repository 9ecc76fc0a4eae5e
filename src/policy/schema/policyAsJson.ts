type Json = Record<string, unknown>;

function isObject(v: unknown): v is Json {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/**
 * A policy as code writes it (a resolved PolicySpec, or a policy whose optional fields may be
 * `undefined`) in the spelling of experiment files (JSON), which the policy schema reads. The two
 * spellings differ only here:
 * - a key whose value is `undefined` is absent, at any depth (`{ perAttemptTimeoutMs: slow ? 5000 : undefined }`),
 *   so it neither fails as an unknown field nor overrides a preset's value;
 * - `backoff.capMs: Infinity` (how a resolved PolicySpec writes "no cap") is `"none"`.
 * Every other value is kept as it is, for the schema to judge.
 */
export function policyAsJson(policy: unknown): unknown {
  if (Array.isArray(policy)) return policy.map(policyAsJson);
  if (!isObject(policy)) return policy;
  const out: Json = {};
  for (const [k, value] of Object.entries(policy)) if (value !== undefined) out[k] = policyAsJson(value);
  if (isObject(out.backoff) && out.backoff.capMs === Infinity) out.backoff = { ...out.backoff, capMs: 'none' };
  return out;
}
