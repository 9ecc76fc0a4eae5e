import type { PolicySpec } from '../policy/types.js';
import { expectedMultiple, type ExpectedMultiple } from './expectedMultiple.js';
import { findingsOf, type Finding, type Severity } from './findings.js';
import { firstWaits, type WaitRange } from './firstWaits.js';
import { graphWorstCase, type GraphWorstCase } from './graphWorstCase.js';
import type { CheckStack } from './loadStack.js';
import { ANSWER_CLASSES, FAILURE_CLASSES, attemptsFor, failureClassesOf, worstCase, type FailureClass, type WorstCase } from './worstCase.js';

/** What to compute besides the worst cases. */
export interface CheckOptions {
  /** The leaf failure rate of the expected load multiple (default 0.1). */
  failureRate?: number;
  /** The failure class of the expected load multiple (default 503). */
  failureClass?: FailureClass;
}

/** One layer as `check` reports it. */
export interface LayerReport {
  index: number;
  name: string;
  instances: number;
  origin: string;
  notes: string[];
  /** The policy with every default filled in. */
  policy: PolicySpec;
  /** The failure classes it retries for the stack's method. */
  retries: FailureClass[];
  /** The ranges of its first waits. */
  firstWaits: WaitRange[];
}

/** The expected load multiple at one failure rate, with and without the budgets. */
export interface ExpectedReport {
  failureClass: FailureClass;
  failureRate: number;
  withoutBudgets: ExpectedMultiple;
  withBudgets: ExpectedMultiple;
}

/** Everything `retrystorm check` says about one stack. */
export interface CheckReport {
  source: string;
  name: string;
  /** The route (or method, or policy) of a file with several that the stack was read from: its name as `--route` takes it, or where it is when it has none or shares it. */
  route?: string;
  method: string;
  /** null: no deadline. */
  deadlineMs: number | null;
  layers: LayerReport[];
  /** One entry per failure class the stack is reported on (failureClassesOf, ANSWER_CLASSES order). */
  worstCase: WorstCase[];
  /** At the requested failure rate, and at 100% failure. */
  expected: ExpectedReport[];
  findings: Finding[];
  counts: Record<Severity, number>;
  /** For the workload's stack of a service graph: the calls on every edge per entry operation, one entry per failure class (FAILURE_CLASSES order). */
  graph?: GraphWorstCase[];
}

/**
 * Static analysis of a retry stack, without simulating: the worst case of one operation per
 * failure class (leaf calls, each layer's attempts, lifetime), the expected load multiple in closed
 * form at a failure rate and at 100% failure (with and without the budgets), each layer's first
 * waits, and the findings (see FINDING_CODES).
 */
export function checkStack(stack: CheckStack, options: CheckOptions = {}): CheckReport {
  const cls = options.failureClass ?? '503';
  const p = options.failureRate ?? 0.1;
  const policies = stack.layers.map((l) => l.policy);
  const worst = failureClassesOf(policies).map((c) => worstCase(policies, c, stack.method, stack.deadlineMs));
  const rates = p === 1 ? [1] : [p, 1];
  const expected = rates.map(
    (rate): ExpectedReport => ({
      failureClass: cls,
      failureRate: rate,
      withoutBudgets: expectedMultiple(stack.layers, cls, rate, stack.method, false),
      withBudgets: expectedMultiple(stack.layers, cls, rate, stack.method, true),
    }),
  );
  const findings = findingsOf(stack, worst);
  const counts: Record<Severity, number> = { error: 0, warning: 0, info: 0 };
  for (const f of findings) counts[f.severity]++;
  return {
    source: stack.source,
    name: stack.name,
    ...(stack.route !== undefined ? { route: stack.route } : {}),
    method: stack.method,
    deadlineMs: stack.deadlineMs ?? null,
    layers: stack.layers.map((l, index) => ({
      index,
      name: l.name,
      instances: l.instances,
      origin: l.origin,
      notes: l.notes,
      policy: l.policy,
      // A lower layer's deadline-exceeded is retried under timeout too; it is listed only when named.
      retries: ANSWER_CLASSES.filter((c) => attemptsFor(l.policy, c, stack.method) > 1 && (c !== 'deadline-exceeded' || l.policy.retryOn.includes(c))),
      firstWaits: firstWaits(l.policy),
    })),
    worstCase: worst,
    expected,
    findings,
    counts,
    ...(stack.graph !== undefined ? { graph: FAILURE_CLASSES.map((c) => graphWorstCase(stack.graph as NonNullable<CheckStack['graph']>, c)) } : {}),
  };
}

/** The exit code for a set of reports: 1 when any has an error-level finding, else 0. */
export function checkExitCode(reports: readonly CheckReport[]): number {
  return reports.some((r) => r.counts.error > 0) ? 1 : 0;
}
