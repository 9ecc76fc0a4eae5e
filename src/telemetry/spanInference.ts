/**
 * The graph found in span samples. Each server span is a request to its service's endpoint (the
 * span's name); its calls are read by `spanCalls.ts` and grouped into steps by time. Per endpoint:
 * the steps are those of the most frequent pattern among requests whose calls all succeeded (else
 * among all), with the calls only other patterns have (calls not made on every request) placed
 * where those patterns put them, each call's calls per request counted over the requests that did
 * not fail on their own (an own error is written as a fault, which answers at once, making no call); a step's join is `all`
 * when its requests went on only after every call ended, else a quorum of the calls that had
 * ended (`any` for one); a call that failed under a request that succeeded is optional; the own
 * work is the request's duration minus the time its calls covered; own errors are failed requests
 * none of whose calls failed. A root span (no parent among the spans read) starts an operation of
 * a workload: a server span one of `user` (as the servicegraph connector names it), a client or
 * internal span one of its service, whose calls are the operations (retries told apart by resend
 * count). Rates are counts over the window.
 */
import { USER_CLIENT, type ObservedCall, type ObservedEndpoint, type ObservedGraph, type ObservedJoin, type ObservedService, type ObservedStep, type ObservedWorkload } from './observedGraph.js';
import { isClientSide, type Span } from './span.js';
import { attemptsBelow, callsOf, clientAttempt, coveredTime, peakOverlap, stepsOf, TraceIndex, type Call, type Callee } from './spanCalls.js';

interface CallTally {
  callee: Callee;
  calls: number;
  attempts: number;
  maxAttempts: number;
  resendSeen: boolean;
  failedUnderSuccess: number;
}

interface EndpointTally {
  requests: number;
  /** The own time of the requests that did not fail on their own (an own error is written as a fault, which answers at once). */
  ownUs: number;
  ownErrors: number;
  patterns: Map<string, { count: number; clean: number; steps: Callee[][] }>;
  tallies: Map<string, CallTally>;
  /** Per pattern step: how many calls had ended when the request went on, counted where every call of the step succeeded. */
  joins: Map<string, Map<number, number>>;
}

function tallyCall(m: Map<string, CallTally>, c: Call, parentOk: boolean): void {
  let t = m.get(c.key);
  if (t === undefined) m.set(c.key, (t = { callee: c.callee, calls: 0, attempts: 0, maxAttempts: 0, resendSeen: false, failedUnderSuccess: 0 }));
  t.calls++;
  t.attempts += c.attempts.length;
  t.maxAttempts = Math.max(t.maxAttempts, c.attempts.length);
  if (c.attempts.some((a) => a.resendCount !== undefined)) t.resendSeen = true;
  if (c.failed && parentOk) t.failedUnderSuccess++;
}

/** The join a step's tally of ended calls says (the most frequent count; all when that is every call). */
function joinOf(counts: Map<number, number> | undefined, n: number): ObservedJoin {
  if (counts === undefined || counts.size === 0) return 'all';
  const [k] = [...counts].sort((a, b) => b[1] - a[1] || b[0] - a[0])[0] as [number, number];
  if (k >= n || k <= 0) return 'all';
  return k === 1 ? 'any' : { quorum: k };
}

/** The key of a callee within its caller's tallies and patterns. */
function calleeKeyOf(c: Callee): string {
  return JSON.stringify([c.service, c.endpoint ?? null]);
}

/** A step of the merged pattern: its callees, and its index in the most frequent pattern (-1: a step added for calls only other patterns have). */
interface MergedStep {
  callees: Callee[];
  from: number;
}

/**
 * The steps of an endpoint: those of its most frequent pattern (`patterns[0]`), with every callee
 * seen only in other patterns (a call not made on every request) placed where the first pattern
 * that has it puts it: in the step of a call it was made together with, else in a step of its own
 * after the step of the nearest earlier call (before that of the nearest later one, or last).
 */
function mergedSteps(patterns: ReadonlyArray<{ steps: Callee[][] }>): MergedStep[] {
  const merged: MergedStep[] = (patterns[0]?.steps ?? []).map((callees, i) => ({ callees: [...callees], from: i }));
  const stepOf = (key: string): number => merged.findIndex((m) => m.callees.some((c) => calleeKeyOf(c) === key));
  const placedIn = (step: readonly Callee[]): number => {
    for (const c of step) {
      const at = stepOf(calleeKeyOf(c));
      if (at >= 0) return at;
    }
    return -1;
  };
  for (const p of patterns.slice(1)) {
    p.steps.forEach((step, i) => {
      for (const c of step) {
        if (stepOf(calleeKeyOf(c)) >= 0) continue;
        const mate = placedIn(step);
        if (mate >= 0) {
          (merged[mate] as MergedStep).callees.push(c);
          continue;
        }
        const earlier = p.steps.slice(0, i).reverse().map(placedIn).find((at) => at >= 0);
        const later = p.steps.slice(i + 1).map(placedIn).find((at) => at >= 0);
        const at = earlier !== undefined ? earlier + 1 : later !== undefined ? later : merged.length;
        merged.splice(at, 0, { callees: [c], from: -1 });
      }
    });
  }
  return merged;
}

function endpointOf(t: EndpointTally): ObservedEndpoint {
  const patterns = [...t.patterns.values()];
  const sorted = patterns.sort((a, b) => b.clean - a.clean || b.count - a.count || b.steps.flat().length - a.steps.flat().length);
  const best = sorted[0];
  const merged = mergedSteps(sorted);
  const slots = new Map<string, number>();
  for (const step of merged) for (const c of step.callees) slots.set(calleeKeyOf(c), (slots.get(calleeKeyOf(c)) ?? 0) + 1);
  // Calls per request served: an own error is written as a fault, which answers at once (no call), so the calls
  // over the requests that did not fail on their own keep the edge's rate.
  const served = t.requests - t.ownErrors;
  const steps: ObservedStep[] = merged.map((step) => {
    const calls: ObservedCall[] = step.callees.map((callee) => {
      const key = calleeKeyOf(callee);
      const tally = t.tallies.get(key) as CallTally;
      return {
        service: callee.service,
        endpoint: callee.endpoint,
        perRequest: tally.calls / (served > 0 ? served : t.requests) / (slots.get(key) ?? 1),
        attemptsPerCall: tally.attempts / tally.calls,
        maxAttempts: tally.maxAttempts,
        retriesSeen: tally.resendSeen,
        optional: tally.failedUnderSuccess > 0,
        calls: tally.calls,
      };
    });
    // The join as the most frequent pattern's requests show it, over the calls that pattern's step has.
    const join = step.from < 0 ? 'all' : joinOf(t.joins.get(`${patternKey(best?.steps ?? [])}#${step.from}`), best?.steps[step.from]?.length ?? calls.length);
    return { calls: join === 'all' ? calls : calls.map((c) => ({ ...c, optional: false })), join };
  });
  return { requests: t.requests, ownWorkMs: served > 0 ? t.ownUs / served / 1000 : 0, ownErrorRate: t.ownErrors / t.requests, steps };
}

function patternKey(steps: readonly Callee[][]): string {
  return JSON.stringify(steps.map((s) => s.map((c) => [c.service, c.endpoint ?? null])));
}

/** The calls of each step sorted by callee, so that one pattern has one key. */
function canonicalSteps(steps: readonly Call[][]): Call[][] {
  return steps.map((s) => [...s].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0)));
}

/** Tally one request (server span `r`) into its endpoint's tally. */
function tallyRequest(t: EndpointTally, index: TraceIndex, r: Span): void {
  const calls = callsOf(attemptsBelow(index, r));
  const steps = canonicalSteps(stepsOf(calls));
  const startUs = r.startUs;
  const endUs = r.startUs + r.durationUs;
  t.requests++;
  const anyFailed = calls.some((c) => c.failed);
  if (r.error && !anyFailed) t.ownErrors++;
  else t.ownUs += Math.max(0, r.durationUs - coveredTime(calls.map((c) => [Math.max(startUs, c.startUs), Math.min(endUs, Math.max(c.startUs, c.endUs))] as const)));
  for (const c of calls) tallyCall(t.tallies, c, !r.error);
  const shape = steps.map((s) => s.map((c) => c.callee));
  const key = patternKey(shape);
  const p = t.patterns.get(key) ?? { count: 0, clean: 0, steps: shape };
  p.count++;
  if (!anyFailed && !r.error) p.clean++;
  t.patterns.set(key, p);
  steps.forEach((step, i) => {
    if (step.some((c) => c.failed)) return;
    const next = steps[i + 1];
    const goesOnUs = next !== undefined ? Math.min(...next.map((c) => c.startUs)) : endUs;
    const ended = step.filter((c) => c.endUs <= goesOnUs).length;
    const jkey = `${key}#${i}`;
    const m = t.joins.get(jkey) ?? new Map<number, number>();
    m.set(ended, (m.get(ended) ?? 0) + 1);
    t.joins.set(jkey, m);
  });
}

function newTally(): EndpointTally {
  return { requests: 0, ownUs: 0, ownErrors: 0, patterns: new Map(), tallies: new Map(), joins: new Map() };
}

/** The window the spans cover, in seconds (first start to last end). */
export function spanWindowSec(spans: readonly Span[]): number {
  let first = Infinity;
  let last = -Infinity;
  for (const s of spans) {
    first = Math.min(first, s.startUs);
    last = Math.max(last, s.startUs + s.durationUs);
  }
  return last > first ? (last - first) / 1e6 : 0;
}

/** The graph found in `spans`, rates over `windowSec` (default: the window the spans cover). */
export function graphFromSpans(spans: readonly Span[], windowSec = spanWindowSec(spans)): ObservedGraph {
  const b = new SpanGraphBuilder(spans);
  b.tallyRequests();
  b.tallyAttempts();
  const perSec = windowSec > 0 ? 1 / windowSec : 0;
  const notes: string[] = [SPAN_RULES];
  if (!spans.some((s) => s.resendCount !== undefined)) notes.push('No span carries http.request.resend_count: every attempt is counted as a call of its own, so retries are not told apart from calls.');
  return { services: b.services(perSec), workloads: b.workloads(perSec), hopMs: b.hopN > 0 && b.hopSum > 0 ? b.hopSum / b.hopN / 1000 : undefined, windowSec, notes };
}

/** A workload's tally: its operations by entry, their attempts, the most attempts, and whether a resend count was seen. */
interface WorkloadTally {
  entries: Map<string, { callee: Callee; n: number }>;
  ops: number;
  attempts: number;
  max: number;
  resend: boolean;
}

/** The tallies {@link graphFromSpans} gathers from the spans: requests per endpoint, peers seen only through client spans, workloads, hops. */
class SpanGraphBuilder {
  private readonly index: TraceIndex;
  private readonly endpoints = new Map<string, Map<string, EndpointTally>>();
  private readonly intervals = new Map<string, Array<[number, number]>>();
  private readonly virtual = new Map<string, { requests: number; us: number; failed: number; intervals: Array<[number, number]> }>();
  private readonly workloadTallies = new Map<string, WorkloadTally>();
  hopSum = 0;
  hopN = 0;

  constructor(private readonly spans: readonly Span[]) {
    this.index = new TraceIndex(spans);
  }

  /** Requests per endpoint and operations per workload; operations before their retries (a root client span retried is counted on its workload once it exists). */
  tallyRequests(): void {
    const index = this.index;
    const ordered = [...this.spans].sort((a, b) => (a.resendCount ?? 0) - (b.resendCount ?? 0));
    for (const s of ordered) {
      if (index.isRequest(s)) {
        let byName = this.endpoints.get(s.service);
        if (byName === undefined) this.endpoints.set(s.service, (byName = new Map()));
        const t = byName.get(s.name) ?? newTally();
        byName.set(s.name, t);
        tallyRequest(t, index, s);
        const list = this.intervals.get(s.service) ?? [];
        list.push([s.startUs, s.startUs + s.durationUs]);
        this.intervals.set(s.service, list);
        if (index.isRoot(s)) this.addOperation(USER_CLIENT, { service: s.service, endpoint: s.name, virtual: false }, 1, false);
      } else if (index.isRoot(s) && isClientSide(s)) {
        // A root client span is one attempt of an operation: a retry when its resend count is above 0.
        const a = clientAttempt(index, s);
        if (a.resendCount !== undefined && a.resendCount > 0) this.addRetry(s.service, a.resendCount + 1);
        else this.addOperation(s.service, a.callee, 1, a.resendCount !== undefined);
      } else if (index.isRoot(s)) {
        for (const c of callsOf(attemptsBelow(index, s))) this.addOperation(s.service, c.callee, c.attempts.length, c.attempts.some((a) => a.resendCount !== undefined));
      }
    }
  }

  /** Attempts to peers without server spans (counted once per client span), and the hops: half of a client span's time beyond its server span's. */
  tallyAttempts(): void {
    const index = this.index;
    for (const s of this.spans) {
      if (!index.isRequest(s) && !index.isRoot(s)) continue;
      const attempts = !index.isRequest(s) && isClientSide(s) ? [clientAttempt(index, s)] : attemptsBelow(index, s);
      for (const a of attempts) {
        if (a.fromClient && a.server !== undefined) {
          this.hopSum += (a.endUs - a.startUs - a.server.durationUs) / 2;
          this.hopN++;
        }
        if (!a.callee.virtual) continue;
        const v = this.virtual.get(a.callee.service) ?? { requests: 0, us: 0, failed: 0, intervals: [] };
        v.requests++;
        v.us += a.endUs - a.startUs;
        if (a.failed) v.failed++;
        v.intervals.push([a.startUs, a.endUs]);
        this.virtual.set(a.callee.service, v);
      }
    }
  }

  /** The services: those with server spans, then the peers seen only through client spans (one endpoint each). */
  services(perSec: number): Map<string, ObservedService> {
    const services = new Map<string, ObservedService>();
    for (const [name, byName] of this.endpoints) {
      const eps = new Map([...byName].map(([ep, t]) => [ep, endpointOf(t)] as const));
      const list = this.intervals.get(name) ?? [];
      const busyUs = list.reduce((a, [s, e]) => a + (e - s), 0);
      services.set(name, { endpoints: eps, requests: list.length, peakInFlight: peakOverlap(list), meanInFlight: (busyUs / 1e6) * perSec, timed: true });
    }
    for (const [name, v] of this.virtual) {
      if (services.has(name)) continue;
      const ep: ObservedEndpoint = { requests: v.requests, ownWorkMs: v.us / v.requests / 1000, ownErrorRate: v.failed / v.requests, steps: [] };
      services.set(name, { endpoints: new Map([[VIRTUAL_ENDPOINT, ep]]), requests: v.requests, peakInFlight: peakOverlap(v.intervals), meanInFlight: (v.us / 1e6) * perSec, timed: true });
    }
    return services;
  }

  workloads(perSec: number): ObservedWorkload[] {
    return [...this.workloadTallies].map(([name, w]) => ({
      name,
      entries: [...w.entries.values()].map((e) => ({ service: e.callee.service, endpoint: e.callee.virtual ? VIRTUAL_ENDPOINT : e.callee.endpoint, weight: e.n })),
      operationsPerSec: w.ops * perSec,
      operations: w.ops,
      attemptsPerOperation: w.attempts / w.ops,
      maxAttempts: w.max,
      retriesSeen: w.resend,
    }));
  }

  private addOperation(name: string, callee: Callee, attempts: number, resend: boolean): void {
    let w = this.workloadTallies.get(name);
    if (w === undefined) this.workloadTallies.set(name, (w = { entries: new Map(), ops: 0, attempts: 0, max: 0, resend: false }));
    const key = JSON.stringify([callee.service, callee.endpoint ?? null]);
    const e = w.entries.get(key) ?? { callee, n: 0 };
    e.n++;
    w.entries.set(key, e);
    w.ops++;
    w.attempts += attempts;
    w.max = Math.max(w.max, attempts);
    w.resend ||= resend;
  }

  private addRetry(name: string, attemptNumber: number): void {
    const w = this.workloadTallies.get(name);
    if (w === undefined) return;
    w.attempts++;
    w.max = Math.max(w.max, attemptNumber);
    w.resend = true;
  }
}

/** The rules of the inference from spans, stated in the file's description. */
export const SPAN_RULES = "From spans: calls that overlap in time are one step, in parallel; a call that starts after every call of its step ended starts the next. A service's own work is its server spans' time minus the time their calls covered, exponential with its mean.";

/** The endpoint name given to a service seen only through its callers' client spans. */
export const VIRTUAL_ENDPOINT = 'call';
