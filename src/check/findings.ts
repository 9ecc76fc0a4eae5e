import { BACKOFF_TRAITS, backoffIsRandom, exponentialCeilingMs } from '../policy/backoff.js';
import { RETRY_ON_CLASS_INFO } from '../policy/classify.js';
import type { Method, PolicySpec, RetryOnClass } from '../policy/types.js';
import { budgetCap } from './expectedMultiple.js';
import { firstWaits } from './firstWaits.js';
import type { CheckLayer, CheckStack } from './loadStack.js';
import { fmtMs, fmtNum, fmtProduct, listAnd } from './text.js';
import { ANSWER_CLASSES, attemptsFor, type WorstCase } from './worstCase.js';

/** How serious a finding is: `error` fails `retrystorm check` (exit code 1). */
export type Severity = 'error' | 'warning' | 'info';

/** The finding codes and their titles. Codes are stable: they never change meaning. */
export const FINDING_CODES = {
  RS001: 'retries at several layers',
  RS002: 'no jitter',
  RS003: 'no backoff',
  RS004: 'exponential backoff without a cap',
  RS005: 'no attempt cap',
  RS006: 'no total time limit',
  RS007: 'a fresh timeout per attempt instead of a shared deadline',
  RS008: 'a deadline shorter than one attempt\'s timeout',
  RS009: 'retries permanent errors',
  RS010: 'replays non-idempotent requests',
  RS011: 'Retry-After ignored or shortened',
  RS012: 'no retry budget anywhere in the stack',
  RS013: 'timer tick coarser than the jitter range',
  RS014: 'per-request limits only',
  RS015: 'retries the refusals of an admission control below',
} as const;

export type FindingCode = keyof typeof FINDING_CODES;

/** One thing `check` found wrong or risky in a stack. */
export interface Finding {
  code: FindingCode;
  title: string;
  severity: Severity;
  /** The layer(s) concerned, by name (`app`, `app, sdk`), or `stack` for the stack as a whole. */
  layer: string;
  /** Indices of the layers concerned (empty for the stack as a whole). */
  layers: number[];
  /** One sentence on the risk. */
  risk: string;
  /** One sentence on the fix. */
  fix: string;
}

/** At this many leaf calls per operation or more, retries at several layers are an error. */
export const AMPLIFICATION_ERROR_AT = 10;
/** An uncapped backoff whose largest wait exceeds this is a warning (an info below). */
export const LONG_WAIT_MS = 60_000;

const LOCAL_CLASSES: readonly RetryOnClass[] = ['throttled', 'circuit-open', 'budget-exhausted'];

/** Whether a layer retries any failure class for `method`. */
export function layerRetries(policy: PolicySpec, method: Method): boolean {
  return policy.hedging === undefined && ANSWER_CLASSES.some((c) => attemptsFor(policy, c, method) > 1);
}

/** Whether a layer bounds retries across requests: a budget, a breaker or an admission control. */
export function hasBudget(policy: PolicySpec): boolean {
  return (policy.budget?.length ?? 0) > 0 || policy.admission !== undefined;
}

/** Whether every wait of the backoff is 0. */
function noWait(policy: PolicySpec): boolean {
  const b = policy.backoff;
  return b.kind === 'none' || (b.baseMs === 0 && b.throttledBaseMs === undefined);
}

/** The largest ceiling the backoff reaches over the layer's retries (+Infinity without an attempt cap). */
function largestCeilingMs(policy: PolicySpec): number {
  if (policy.maxAttempts === 'unlimited') return Infinity;
  const b = policy.backoff;
  if (b.kind === 'decorrelated-jitter') return Math.min(b.capMs, b.baseMs * Math.pow(3, policy.maxAttempts - 1));
  const last = firstWaits(policy, Math.max(0, policy.maxAttempts - 1)).at(-1);
  if (last === undefined) return 0;
  return BACKOFF_TRAITS[b.kind].growth === 'multiplier' ? Math.max(last.maxMs, exponentialCeilingMs(b, policy.maxAttempts - 1)) : last.maxMs;
}

/**
 * Whether the backoff grows with each retry, by how its kind grows ({@link BACKOFF_TRAITS}): a
 * multiplier above 1, or any positive base for the kinds that grow from the previous wait, linearly or
 * by Envoy's doubling range.
 */
function grows(policy: PolicySpec): boolean {
  const b = policy.backoff;
  const growth = BACKOFF_TRAITS[b.kind].growth;
  switch (growth) {
    case 'multiplier':
      return b.multiplier > 1 && b.baseMs > 0;
    case 'previous-wait':
    case 'linear':
    case 'doubling-range':
      return b.baseMs > 0;
    case 'none':
      return false;
    default:
      return unreachableGrowth(growth);
  }
}

function unreachableGrowth(growth: never): never {
  throw new Error(`internal: unknown backoff growth ${String(growth)}`);
}

function describeWaits(policy: PolicySpec): string {
  const waits = firstWaits(policy, 4);
  const parts = waits.map((w) => fmtMs(w.maxMs));
  return parts.length > 0 ? `${parts.join(', ')}${policy.maxAttempts === 'unlimited' || (policy.maxAttempts as number) - 1 > waits.length ? ', ...' : ''}` : '';
}

/** Which time limits reach each layer: finite[k] is true when a call to layer k has a deadline. */
function incomingDeadlines(stack: CheckStack): boolean[] {
  const out: boolean[] = [];
  for (let k = 0; k < stack.layers.length; k++) {
    if (k === 0) {
      out.push(stack.deadlineMs !== undefined);
      continue;
    }
    const parent = (stack.layers[k - 1] as CheckLayer).policy;
    const parentDeadline = (parent.deadlineMode !== 'none' && (out[k - 1] as boolean)) || parent.totalTimeoutMs !== undefined;
    out.push(parent.perAttemptTimeoutMs !== undefined || parentDeadline);
  }
  return out;
}

/** The most time a call to each layer is given (+Infinity: none), and what sets it. */
function budgets(stack: CheckStack): Array<{ ms: number; by: string }> {
  const out: Array<{ ms: number; by: string }> = [];
  stack.layers.forEach((layer, k) => {
    let incoming: { ms: number; by: string };
    if (k === 0) incoming = stack.deadlineMs !== undefined ? { ms: stack.deadlineMs, by: 'the operation deadline' } : { ms: Infinity, by: '' };
    else {
      const parentLayer = stack.layers[k - 1] as CheckLayer;
      const parent = parentLayer.policy;
      const parentBudget = out[k - 1] as { ms: number; by: string };
      const perAttempt = parent.perAttemptTimeoutMs ?? Infinity;
      const fromDeadline = parent.deadlineMode === 'fresh' && parent.perAttemptTimeoutMs !== undefined ? Infinity : parentBudget.ms;
      incoming =
        perAttempt <= fromDeadline
          ? { ms: perAttempt, by: `${parentLayer.name}'s per-attempt timeout` }
          : { ms: fromDeadline, by: parentBudget.by };
    }
    const p = layer.policy;
    const own = p.deadlineMode === 'none' ? { ms: Infinity, by: '' } : incoming;
    const total = p.totalTimeoutMs ?? Infinity;
    out.push(total < own.ms ? { ms: total, by: `${layer.name}'s total timeout` } : own);
  });
  return out;
}

/**
 * The fix of a finding in the format of the one layer it concerns (CheckLayer.fixes): a stack-wide
 * finding concerns the layer of a stack of one, and RS006 (no total time limit) the top layer;
 * undefined for the generic fix.
 */
function formatFix(layers: readonly CheckLayer[], ks: readonly number[], code: FindingCode): string | undefined {
  if (ks.length === 0) return layers.length === 1 || code === 'RS006' ? layers[0]?.fixes?.[code] : undefined;
  return ks.length === 1 ? layers[ks[0] as number]?.fixes?.[code] : undefined;
}

/**
 * What each of a layer's budgets caps a long failure at (every call failing), as budgetCap states
 * it in the closed-form tables: `finagle: retries <= 20% of requests (1.2 attempts per call), ...`.
 */
function budgetLimits(p: PolicySpec): string[] {
  const out = (p.budget ?? []).map((b) => budgetCap(b, 1, '503', Infinity).note);
  if (p.admission !== undefined) out.push(`${p.admission.kind}: admission control sheds attempts as failures rise`);
  return out;
}

/** What every rule reads: the stack, its worst cases, which layers retry, the time each layer is given, and where findings go. */
interface RuleContext {
  stack: CheckStack;
  worst: readonly WorstCase[];
  layers: readonly CheckLayer[];
  retrying: boolean[];
  anyBudget: boolean;
  /** The time each layer is given, and by what. */
  given: Array<{ ms: number; by: string }>;
  add: (code: FindingCode, severity: Severity, ks: number[], risk: string, fix: string) => void;
  name: (k: number) => string;
}

/** RS001: the worst failure class retried at several layers, with its leaf calls. */
function multiLayerRetries(c: RuleContext): void {
  const { worst, add, name } = c;
  const multi = worst.filter((w) => w.retryingLayers.length >= 2).sort((a, b) => b.leafCalls - a.leafCalls || b.nominal - a.nominal);
  const top = multi[0];
  if (top !== undefined) {
    const ks = top.retryingLayers;
    const factors = ks.map((k) => top.attemptsPerCall[k] as number);
    const others = multi.slice(1).map((w) => `${w.failureClass}: ${fmtNum(w.leafCalls)}`);
    const capped = top.leafCalls < top.nominal ? ` (${fmtProduct(factors)} = ${fmtNum(top.nominal)} without the deadlines)` : ` (${fmtProduct(factors)})`;
    add(
      'RS001',
      top.leafCalls >= AMPLIFICATION_ERROR_AT ? 'error' : 'warning',
      ks,
      `${ks.length} layers (${listAnd(ks.map(name))}) retry ${top.failureClass}, so one operation against a failing dependency makes up to ${fmtNum(top.leafCalls)} leaf calls${capped}${others.length > 0 ? `; also ${others.join(', ')}` : ''}.`,
      'Retry at one layer only, usually the one nearest the failing dependency, and have the others pass failures up (maxAttempts 1) or answer "overloaded; don\'t retry".',
    );
  }
}

/** RS003, RS002, RS004: a layer's waits (none, the same on every client, growing without a cap). */
function waitFindings(c: RuleContext, k: number): void {
  const { add } = c;
  const layer = c.layers[k] as CheckLayer;
  const p = layer.policy;
  const b = p.backoff;
  // RS003 / RS002: no wait at all, or the same waits on every client.
  if (noWait(p)) {
    add('RS003', 'warning', [k], `${layer.name} retries at once, with no wait: a dependency that just failed gets the retries in the same instant, with no time to recover.`, 'Wait between attempts, exponentially and with jitter (e.g. backoff full-jitter from 100 ms, capped at a few seconds).');
  } else if (!backoffIsRandom(b.kind, b)) {
    add('RS002', 'warning', [k], `${layer.name} waits the same ${describeWaits(p)} on every client: clients that failed together retry together, in synchronized waves.`, 'Draw each wait at random: full or decorrelated jitter (backoff.kind full-jitter; for node-retry, p-retry and async-retry, randomize: true).');
  }
  // RS004: growing without a cap.
  if (grows(p) && !Number.isFinite(b.capMs)) {
    const largest = largestCeilingMs(p);
    add(
      'RS004',
      largest > LONG_WAIT_MS ? 'warning' : 'info',
      [k],
      `${layer.name}'s waits grow without a cap: ${Number.isFinite(largest) ? `the last retry waits up to ${fmtMs(largest)}` : 'they grow without end'}, long after the caller has stopped caring.`,
      'Cap the wait (backoff.capMs, e.g. 20 s as the AWS SDKs do) and bound the attempts or the total time.',
    );
  }
}

/** RS005: no attempt cap; what stops the retries instead (time limits, budgets), each with its bound. */
function attemptCapFinding(c: RuleContext, k: number): void {
  const { stack, worst, add } = c;
  const layer = c.layers[k] as CheckLayer;
  const p = layer.policy;
  const deadlines = c.given;
  // RS005: no attempt cap; what stops the retries instead (time limits, budgets), each with its bound.
  if (p.maxAttempts === 'unlimited') {
    const forever = worst.some((w) => !Number.isFinite(w.lifetimeMs) && !Number.isFinite(w.leafCalls) && attemptsFor(p, w.failureClass, stack.method) > 1);
    const limits = [p.totalTimeoutMs !== undefined ? `its total timeout (${fmtMs(p.totalTimeoutMs)})` : '', p.maxElapsedMs !== undefined ? `its max elapsed time (${fmtMs(p.maxElapsedMs)})` : '']
      .filter((s) => s !== '');
    const given = deadlines[k] as { ms: number; by: string };
    if (limits.length === 0 && Number.isFinite(given.ms)) limits.push(`${given.by} (${fmtMs(given.ms)})`);
    const caps = budgetLimits(p);
    const stoppers = [`${limits.length > 0 ? listAnd(limits) : 'the deadline'} ends each call`, ...(caps.length > 0 ? [`its budget caps a long failure (${caps.join('; ')})`] : [])];
    if (limits.length === 0 && forever) stoppers.shift();
    add(
      'RS005',
      forever && caps.length === 0 ? 'error' : 'warning',
      [k],
      forever && caps.length === 0
        ? `${layer.name} retries without an attempt cap and nothing stops it: against a dependency that keeps failing it retries forever.`
        : `${layer.name} retries without an attempt cap: ${listAnd(stoppers)}; until then it makes as many attempts as fit${forever ? ', and no time limit ends a call' : ''}.`,
      'Cap the attempts (3 is the usual default) as well as the time.',
    );
  }
}

/** RS009, RS010: permanent errors retried; non-idempotent requests replayed. */
function retryClassFindings(c: RuleContext, k: number): void {
  const { stack, worst, add } = c;
  const layer = c.layers[k] as CheckLayer;
  const p = layer.policy;
  // RS009: permanent errors.
  const permanent = (['400', '404'] as const).filter((c) => p.retryOn.includes(c));
  if (permanent.length > 0) {
    const w = worst.find((x) => x.failureClass === permanent[0]);
    add(
      'RS009',
      'warning',
      [k],
      `${layer.name} retries ${listAnd(permanent)}: a bad request fails the same way every time, so every retry is wasted work${w !== undefined ? ` (${fmtNum(w.leafCalls)} leaf calls per bad request at worst)` : ''}.`,
      'Retry only transient failures (timeouts, 500, 503, 429): remove 400 and 404 from retryOn (with a generic library, stop on 4xx, e.g. p-retry\'s AbortError).',
    );
  }
  // RS010: replaying non-idempotent requests.
  // The classes whose idempotency rule needs an idempotent operation (the work may have run).
  const unsafe = p.retryOn.filter((c) => RETRY_ON_CLASS_INFO[c].idempotency === 'idempotent');
  if (p.idempotency === 'always' && unsafe.length > 0) {
    add(
      'RS010',
      stack.method === 'POST' ? 'error' : 'warning',
      [k],
      `${layer.name} replays requests whatever their method after ${listAnd(unsafe.map((c) => (c === 'timeout' ? 'a timeout' : /^\d/.test(c) ? `a ${c}` : c)))}: a ${stack.method === 'POST' ? 'POST (this operation)' : 'POST'} may already have taken effect when its attempt ${unsafe.includes('timeout') ? 'timed out' : 'failed'}, and the retry does it again.`,
      'Replay non-idempotent requests only with an idempotency key the server deduplicates, or only on failures that surely did not reach the server; otherwise use idempotency "http".',
    );
  }
}

/** RS011, RS013: Retry-After ignored or shortened; a timer tick as wide as the jitter. */
function timingFindings(c: RuleContext, k: number): void {
  const { stack, add } = c;
  const layer = c.layers[k] as CheckLayer;
  const p = layer.policy;
  const b = p.backoff;
  // RS011: Retry-After.
  const hinted = (['503', '429'] as const).filter((c) => attemptsFor(p, c, stack.method) > 1);
  if (hinted.length > 0 && (p.retryAfter === 'ignore' || p.retryAfter === 'clamp')) {
    add(
      'RS011',
      'warning',
      [k],
      p.retryAfter === 'ignore'
        ? `${layer.name} ignores Retry-After on ${listAnd(hinted)}: when an overloaded server asks its callers to come back later, they come back after their own backoff.`
        : `${layer.name} shortens Retry-After to at most its backoff + 5 s: a longer wait the server asks for is cut short.`,
      'Never wait less than the server asks: retryAfter "honor" (max(hint, backoff)).',
    );
  }
  // RS013: tick vs jitter.
  if (p.tickMs > 0 && backoffIsRandom(b.kind, b)) {
    const w = firstWaits(p, 1)[0];
    if (w !== undefined && p.tickMs >= w.maxMs - w.minMs) {
      add(
        'RS013',
        'warning',
        [k],
        `${layer.name}'s ${fmtMs(p.tickMs)} timer tick is at least as wide as its first jitter range (${fmtMs(w.minMs)} to ${fmtMs(w.maxMs)}): jittered wake-ups land on the same tick and clients retry together again.`,
        'Use a finer timer, or a backoff whose jitter range spans many ticks (a larger base).',
      );
    }
  }
}

/** RS014, RS015: per-request limits where another layer has a budget; an admission control's refusals retried. */
function guardFindings(c: RuleContext, k: number): void {
  const { worst, add } = c;
  const layer = c.layers[k] as CheckLayer;
  const p = layer.policy;
  const { layers, anyBudget, name } = c;
  // RS014: per-request limits only, when another layer has a budget.
  if (anyBudget && !hasBudget(p)) {
    const a = worst.reduce((m, w) => Math.max(m, w.attemptsPerCall[k] ?? 1), 1);
    add(
      'RS014',
      'warning',
      [k],
      `${layer.name}'s retries are limited per request only (${fmtNum(a)} attempts each): a budget at another layer does not bound them, so in a long outage ${layer.name} keeps multiplying the load.`,
      `Give ${layer.name} a retry budget too (e.g. sre-ratio 10%), or stop it retrying.`,
    );
  }
  // RS015: retrying an admission control's refusals.
  const local = LOCAL_CLASSES.filter((c) => p.retryOn.includes(c));
  const below = layers.slice(k + 1).flatMap((l, i) => (l.policy.admission !== undefined ? [k + 1 + i] : []));
  if (local.length > 0 && below.length > 0) {
    add(
      'RS015',
      'warning',
      [k, ...below],
      `${layer.name} retries ${listAnd(local)}, the refusals of the admission control at ${listAnd(below.map(name))}: when it sheds load, ${layer.name} sends it straight back.`,
      'Treat a refusal from below as final: remove throttled, circuit-open and budget-exhausted from retryOn.',
    );
  }
}

/** RS006: nothing bounds the operation's total time. */
function unboundedTimeFinding(c: RuleContext): void {
  const { stack, worst, layers, add, name } = c;
  const top0 = layers[0]?.policy;
  if (top0 !== undefined && stack.deadlineMs === undefined && top0.totalTimeoutMs === undefined && top0.maxElapsedMs === undefined) {
    const longest = worst.reduce((m, w) => (Number.isNaN(w.lifetimeMs) ? m : Math.max(m, w.lifetimeMs)), 0);
    const forever = !Number.isFinite(longest);
    const hang = layers.findIndex((l) => l.policy.perAttemptTimeoutMs === undefined && l.policy.totalTimeoutMs === undefined);
    add(
      'RS006',
      forever ? 'error' : 'warning',
      [],
      forever
        ? `Nothing bounds an operation's time: no deadline, and ${hang >= 0 ? `${name(hang)} has no per-attempt timeout, so an attempt against a server that never answers waits forever` : 'the retries never end'}.`
        : `The operation has no deadline and ${name(0)} no total timeout: at worst it lasts ${fmtMs(longest)} (every timeout and the longest waits), while its caller may have given up long before.`,
      'Give every operation a deadline and propagate it (deadlineMs, or a total timeout at the top layer), and give each attempt a timeout.',
    );
  }
}

/** RS007, RS008: a layer's deadline mode and its per-attempt timeout against the time it is given. */
function deadlineFindings(c: RuleContext, k: number, incoming: readonly boolean[]): void {
  const { retrying, given, add } = c;
  const layer = c.layers[k] as CheckLayer;
  const p = layer.policy;
  if (p.deadlineMode === 'fresh' && p.perAttemptTimeoutMs !== undefined) {
    add(
      'RS007',
      'warning',
      [k],
      `${layer.name} gives every attempt a fresh ${fmtMs(p.perAttemptTimeoutMs)} timeout whatever remains of the deadline: an operation can overrun its deadline by a whole attempt.`,
      'Share one deadline: deadlineMode "propagate" gives each attempt min(per-attempt timeout, time remaining).',
    );
  } else if (p.deadlineMode === 'none' && incoming[k] === true && retrying[k]) {
    add(
      'RS007',
      'warning',
      [k],
      `${layer.name} ignores the deadline it is given (deadlineMode "none"): it keeps retrying after its caller has stopped waiting, for nobody.`,
      'Share one deadline: deadlineMode "propagate" checks the time remaining before every attempt and every wait.',
    );
  }
  const budget = given[k] as { ms: number; by: string };
  if (p.perAttemptTimeoutMs !== undefined && budget.ms < p.perAttemptTimeoutMs) {
    add(
      'RS008',
      'warning',
      [k],
      `${layer.name}'s per-attempt timeout (${fmtMs(p.perAttemptTimeoutMs)}) is longer than the ${fmtMs(budget.ms)} it is given (${budget.by}): a hung attempt uses up the whole time, so a retry after a timeout never happens${p.deadlineMode === 'fresh' ? ', and in fresh mode the attempt overruns the deadline' : ''}.`,
      `Make each layer's per-attempt timeout a fraction of the time it is given (below ${fmtMs(budget.ms)}), and the layers above wait longer than the ones below.`,
    );
  }
}

/** RS012: retries and no budget anywhere. */
function noBudgetFinding(c: RuleContext): void {
  const { worst, add } = c;
  if (c.retrying.some(Boolean) && !c.anyBudget) {
    const w503 = worst.find((w) => w.failureClass === '503');
    add(
      'RS012',
      'warning',
      [],
      `No layer has a retry budget: while the dependency fails, the stack keeps sending ${w503 !== undefined && w503.leafCalls > 1 ? `up to ${fmtNum(w503.leafCalls)}x` : 'several times'} the load on it, for as long as the failure lasts.`,
      'Add a budget where retries happen: a retry ratio (sre-ratio 10%), the AWS SDK retry quota (token-bucket) or gRPC retry throttling, so retries stop when most calls fail.',
    );
  }
}

/**
 * The findings of a stack (docs/concepts.md, "Concepts", for the semantics; the SRE book, the AWS
 * Architecture Blog and the libraries' sources for the advice), given its worst cases per failure
 * class. Sorted by severity, then code, then layer.
 */
export function findingsOf(stack: CheckStack, worst: readonly WorstCase[]): Finding[] {
  const out: Finding[] = [];
  const layers = stack.layers;
  const c: RuleContext = {
    stack,
    worst,
    layers,
    retrying: layers.map((l) => layerRetries(l.policy, stack.method)),
    anyBudget: layers.some((l) => hasBudget(l.policy)),
    given: budgets(stack),
    // A layer's fix in its format's own terms (CheckLayer.fixes) replaces the generic one.
    add: (code, severity, ks, risk, fix) =>
      out.push({ code, title: FINDING_CODES[code], severity, layer: ks.length === 0 ? 'stack' : ks.map((k) => layers[k]?.name ?? `layer${k}`).join(', '), layers: ks, risk, fix: formatFix(layers, ks, code) ?? fix }),
    name: (k) => layers[k]?.name ?? `layer${k}`,
  };
  multiLayerRetries(c);
  layers.forEach((_, k) => {
    if (!c.retrying[k]) return;
    waitFindings(c, k);
    attemptCapFinding(c, k);
    retryClassFindings(c, k);
    timingFindings(c, k);
    guardFindings(c, k);
  });
  unboundedTimeFinding(c);
  const incoming = incomingDeadlines(stack);
  layers.forEach((_, k) => deadlineFindings(c, k, incoming));
  noBudgetFinding(c);
  const rank: Record<Severity, number> = { error: 0, warning: 1, info: 2 };
  return out.sort((a, b) => rank[a.severity] - rank[b.severity] || a.code.localeCompare(b.code) || (a.layers[0] ?? -1) - (b.layers[0] ?? -1));
}
