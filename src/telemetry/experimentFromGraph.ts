/**
 * An inferred graph written as a graph experiment file (docs/experiments.md, "Service graphs"): each service a
 * `server` fleet whose service time is exponential with the mean of its own work and whose own
 * errors are a fault (status 500) at their rate, each endpoint its work step and its steps of calls
 * (a call observed n times per request is written as whole calls and one with the probability of
 * the fraction left: {@link callsWritten}), each workload an open loop at its rate into its entries. What
 * telemetry cannot say is a placeholder, `FILL IN: ...` where a number is required, so that
 * `validate` names each one until it is replaced: every fleet's workers and queue limit, every
 * retry policy's attempts (the evidence in the placeholder and in the description).
 */
import { distSchema, INF_BOUND } from '../experiment/index.js';
import { WORKLOAD_CALLER } from '../model/graph/ServiceGraph.js';
import type { ObservedCall, ObservedEndpoint, ObservedGraph, ObservedService } from './observedGraph.js';
import { SafeNames } from './safeNames.js';
import type { DurationHistogram } from './servicegraphSeries.js';

/** What starts every placeholder: a string where the schema requires a number, which `validate` reports by its path. */
export const PLACEHOLDER_PREFIX = 'FILL IN: ';
/** The status of the fault that stands for a service's own errors. */
export const OWN_ERROR_STATUS = 500;
/** Replications of the written experiment (and in quick mode). */
export const IMPORTED_REPLICATIONS = { full: 10, quick: 2 } as const;
/** The written workloads' duration (ms) unless asked otherwise: long enough for a steady state, short enough to run quickly. */
export const DEFAULT_IMPORTED_DURATION_MS = 60_000;
/** How far (relative) calls per request may be from the whole number written before the notes say so. */
export const CALL_ROUNDING_TOLERANCE = 0.05;
/** The names no service or workload may take: the workloads' caller in a graph's edges. */
const RESERVED_NAMES = [WORKLOAD_CALLER];

/** One placeholder written: where it is (a dotted path from the file's root) and the evidence in full. */
export interface Placeholder {
  path: string;
  text: string;
}

/** The experiment written, its placeholders and its notes. */
export interface ImportedExperiment {
  experiment: Record<string, unknown>;
  placeholders: Placeholder[];
  notes: string[];
}

/** Options of the file written. */
export interface ExperimentOptions {
  name: string;
  durationMs?: number;
  /** The files read, for the description. */
  sources: readonly string[];
  /** Services' utilisation (0 to 1, by the names read), when known: the workers' evidence then says how many would be that busy. */
  utilization?: Readonly<Record<string, number>>;
}

/** A number for people and files: three significant digits. */
function sig(x: number): number {
  return Number(x.toPrecision(3));
}

/**
 * A server-time histogram (seconds, cumulative buckets) as an empirical `histogram` service time in
 * ms (docs/concepts.md, "Concepts", the bullet "Distributions"): its bounds and counts as read,
 * the `+Inf` bucket's observations drawn with the exponential tail that keeps the histogram's mean
 * (`_sum` over `_count`), or at the highest bound where the buckets' midpoints already exceed that
 * mean; undefined when the buckets do not make a valid histogram (decreasing counts, no finite
 * bound, nothing counted).
 */
function histogramServiceMs(h: DurationHistogram): Record<string, unknown> | undefined {
  const finite = h.buckets.filter((b) => Number.isFinite(b.le));
  const inf = h.buckets.find((b) => !Number.isFinite(b.le));
  if (finite.length === 0) return undefined;
  const total = Math.max(inf?.count ?? 0, h.count);
  const last = (finite[finite.length - 1] as { count: number }).count;
  const tail = total > last;
  const spec = {
    dist: 'histogram',
    le: [...finite.map((b) => Number((b.le * 1000).toPrecision(12))), ...(tail ? [INF_BOUND] : [])],
    counts: [...finite.map((b) => b.count), ...(tail ? [total] : [])],
  };
  const exponential = tail ? { ...spec, tail: 'exponential', sum: Number((h.sumSec * 1000).toPrecision(12)) } : spec;
  return [exponential, spec].find((s) => distSchema.safeParse(s).success);
}

/**
 * A service's time: from the series alone for a service that makes no calls, its server-time
 * histogram as an empirical distribution; otherwise exponential with the mean own work.
 */
function serviceMsOf(meanMs: number, serverTime?: DurationHistogram): unknown {
  const empirical = serverTime === undefined ? undefined : histogramServiceMs(serverTime);
  if (empirical !== undefined) return empirical;
  return meanMs > 0 ? { dist: 'exponential', mean: sig(meanMs) } : 0;
}

/**
 * How a call observed `perRequest` times per request is written: `whole` calls made on every
 * request, and one more made with `probability` for the fraction left (a call made 0.3 times per
 * request is one call of probability 0.3; 2.5 times, two calls and one of probability 0.5: the
 * mean kept). A fraction within {@link CALL_ROUNDING_TOLERANCE} of a whole number is rounded away.
 * Where a probability cannot be written (a step not joined by `all`: probabilities below 1 are
 * allowed with `all` only), or where retries were not told apart from calls (what is above one
 * call per request may be retries, which the call's stack makes), the count is rounded, at least
 * one call (a fraction below one is still a probability under `all`: retries only add attempts).
 */
export function callsWritten(c: ObservedCall, joinAll: boolean): { whole: number; probability?: number } {
  const n = c.perRequest;
  const rounded = Math.round(n);
  if (Math.abs(n - rounded) <= CALL_ROUNDING_TOLERANCE * Math.max(1, rounded) && rounded >= 1) return { whole: rounded };
  if (!joinAll) return { whole: Math.max(1, rounded) };
  if (n < 1) return { whole: 0, probability: sig(n) };
  if (!c.retriesSeen) return { whole: rounded };
  const whole = Math.floor(n);
  const fraction = n - whole;
  return fraction <= CALL_ROUNDING_TOLERANCE * whole ? { whole } : { whole, probability: sig(fraction) };
}

function attemptsEvidence(retriesSeen: boolean, max: number, mean: number, count: number, per: string): string {
  if (!retriesSeen) return 'attempts (retries not told apart)';
  return max <= 1 ? `attempts (no retry in ${count} ${per}s)` : `attempts (seen up to ${max}, ${sig(mean)} per ${per})`;
}

function meanOwnWork(s: ObservedService): number {
  let n = 0;
  let t = 0;
  for (const e of s.endpoints.values()) {
    n += e.requests;
    t += e.requests * e.ownWorkMs;
  }
  return n > 0 ? t / n : 0;
}

/** The graph as an experiment file, with the placeholders it holds and the notes on what was assumed. */
export function experimentFromGraph(g: ObservedGraph, opts: ExperimentOptions): ImportedExperiment {
  return new ExperimentWriter(g, opts).write();
}

/** The writing of one experiment: the names made valid, then the services, the workloads and the description, placeholders and notes gathered on the way. */
class ExperimentWriter {
  private readonly placeholders: Placeholder[] = [];
  private readonly notes: string[];
  private readonly serviceNames = new SafeNames(RESERVED_NAMES);
  private readonly workloadNames: SafeNames;
  private readonly endpointNames: Map<string, SafeNames>;

  constructor(
    private readonly g: ObservedGraph,
    private readonly opts: ExperimentOptions,
  ) {
    this.notes = [...g.notes];
    for (const name of g.services.keys()) this.serviceNames.of(name);
    this.workloadNames = new SafeNames([...RESERVED_NAMES, ...[...g.services.keys()].map((s) => this.serviceNames.of(s))]);
    this.endpointNames = new Map([...g.services].map(([name, s]) => {
      const names = new SafeNames();
      for (const ep of s.endpoints.keys()) names.of(ep);
      return [name, names] as const;
    }));
  }

  write(): ImportedExperiment {
    const { g, opts, notes, placeholders } = this;
    const services: Record<string, unknown> = {};
    for (const [raw, s] of g.services) services[this.serviceNames.of(raw)] = this.serviceOf(raw, s);
    const workloads: Record<string, unknown> = {};
    for (const w of g.workloads) workloads[this.workloadNames.of(w.name)] = this.workloadOf(w);
    for (const [raw, safe] of [...this.serviceNames.renamed, ...this.workloadNames.renamed]) notes.push(`"${raw}" is named ${safe} here.`);
    const scenario: Record<string, unknown> = { workloads, services };
    if (g.hopMs !== undefined) scenario.network = { hopMs: { dist: 'exponential', mean: sig(g.hopMs) } };
    const description = [
      `Imported by retrystorm import-telemetry from ${opts.sources.join(', ')} over ${sig(g.windowSec)} s.`,
      ...notes,
      `Placeholders (FILL IN) to replace before running: ${placeholders.map((p) => `${p.path}: ${p.text}`).join('; ')}.`,
    ].join(' ');
    const experiment = {
      name: opts.name,
      description,
      seed: 1,
      scenario,
      replications: IMPORTED_REPLICATIONS.full,
      quick: { replications: IMPORTED_REPLICATIONS.quick },
    };
    return { experiment, placeholders, notes };
  }

  /** A placeholder at `path`: what is missing and the evidence, as the string written there. */
  private hold(path: string, what: string, evidence: string): string {
    this.placeholders.push({ path, text: `${what}${evidence === '' ? '' : ` (${evidence})`}` });
    return `${PLACEHOLDER_PREFIX}${what}${evidence === '' ? '' : ` (${evidence})`}`;
  }

  /** An endpoint's name as written: none when its service has one endpoint. */
  private endpointName(service: string, ep: string | undefined): string | undefined {
    const s = this.g.services.get(service);
    if (ep === undefined || s === undefined || s.endpoints.size <= 1) return undefined;
    return this.endpointNames.get(service)?.of(ep);
  }

  private callOf(c: ObservedCall, at: string): Record<string, unknown> {
    const endpoint = this.endpointName(c.service, c.endpoint);
    return {
      service: this.serviceNames.of(c.service),
      ...(endpoint !== undefined ? { endpoint } : {}),
      ...(c.optional ? { optional: true } : {}),
      stack: [{ name: 'client', policy: { maxAttempts: this.hold(`${at}.stack.0.policy.maxAttempts`, attemptsEvidence(c.retriesSeen, c.maxAttempts, c.attemptsPerCall, c.calls, 'call'), '') } }],
    };
  }

  /** A service: its fleet (placeholders for what telemetry cannot say) and its endpoints. */
  private serviceOf(raw: string, s: ObservedService): Record<string, unknown> {
    const { g, opts } = this;
    const at = `scenario.services.${this.serviceNames.of(raw)}`;
    const own = meanOwnWork(s);
    const errors = s.requests > 0 ? [...s.endpoints.values()].reduce((a, e) => a + e.requests * e.ownErrorRate, 0) / s.requests : 0;
    const given = opts.utilization !== undefined && Object.hasOwn(opts.utilization, raw) ? opts.utilization[raw] : undefined;
    // With its utilisation given: the workers busy on its own work on average (rate x own work) over that fraction.
    const busy = g.windowSec > 0 ? (s.requests / g.windowSec) * (own / 1000) : 0;
    const inFlight = !s.timed ? 'no duration series'
      : given !== undefined ? `~${sig(busy / given)} at ${sig(given * 100)}% busy${s.peakInFlight !== undefined ? `, peak ${s.peakInFlight} in flight` : ''}`
      : s.peakInFlight !== undefined ? `peak ${s.peakInFlight} in flight, mean ${sig(s.meanInFlight)}`
      : `mean ${sig(s.meanInFlight)} in flight`;
    const fleet: Record<string, unknown> = {
      kind: 'server',
      concurrency: this.hold(`${at}.fleet.concurrency`, 'workers', inFlight),
      queueLimit: this.hold(`${at}.fleet.queueLimit`, 'queue limit', ''),
      serviceMs: s.timed ? serviceMsOf(own, s.serverTime) : this.hold(`${at}.fleet.serviceMs`, 'service time ms', 'no duration series'),
    };
    if (errors > 0) fleet.faults = [{ probability: sig(errors), status: OWN_ERROR_STATUS }];
    const endpoints: Record<string, unknown> = {};
    for (const [epRaw, ep] of s.endpoints) {
      const epName = this.endpointNames.get(raw)?.of(epRaw) as string;
      endpoints[epName] = this.endpointOf(ep, `${at}.endpoints.${epName}`, raw, s.endpoints.size > 1);
    }
    return { fleet, endpoints };
  }

  private endpointOf(ep: ObservedEndpoint, at: string, caller: string, ownStep: boolean): Record<string, unknown> {
    if (ep.steps.length === 0) return ownStep ? { steps: [{ kind: 'work', serviceMs: serviceMsOf(ep.ownWorkMs) }] } : {};
    const steps: unknown[] = [ownStep ? { kind: 'work', serviceMs: serviceMsOf(ep.ownWorkMs) } : { kind: 'work' }];
    ep.steps.forEach((st) => {
      const i = steps.length;
      const calls: unknown[] = [];
      for (const c of st.calls) {
        const { whole, probability } = callsWritten(c, st.join === 'all');
        const written = probability === undefined ? `${whole}` : `${whole > 0 ? `${whole} and ` : ''}one with probability ${probability}`;
        if (Math.abs(c.perRequest - whole - (probability ?? 0)) > CALL_ROUNDING_TOLERANCE * Math.max(1, whole)) {
          const why = st.join !== 'all' ? `a call of a step joined by ${typeof st.join === 'object' ? `quorum ${st.join.quorum}` : st.join} is made on every request` : 'retries are not told apart from calls, so what is above one call may be retries';
          this.notes.push(`${caller} -> ${c.service}: ${sig(c.perRequest)} calls per request observed; written as ${written} (${why}).`);
        } else if (probability !== undefined) this.notes.push(`${caller} -> ${c.service}: ${sig(c.perRequest)} calls per request observed; written as ${written}.`);
        for (let k = 0; k < whole; k++) calls.push(this.callOf(c, `${at}.steps.${i}.calls.${calls.length}`));
        if (probability !== undefined) calls.push({ ...this.callOf(c, `${at}.steps.${i}.calls.${calls.length}`), probability });
      }
      steps.push({ kind: 'call', calls, ...(st.join === 'all' ? {} : { join: st.join }) });
    });
    return { steps };
  }

  /** A workload: an open loop at its rate into its entries, its attempts a placeholder. */
  private workloadOf(w: ObservedGraph['workloads'][number]): Record<string, unknown> {
    const at = `scenario.workloads.${this.workloadNames.of(w.name)}`;
    const entries = w.entries.map((e) => {
      const endpoint = this.endpointName(e.service, e.endpoint);
      return { service: this.serviceNames.of(e.service), ...(endpoint !== undefined ? { endpoint } : {}), weight: e.weight };
    });
    const entry = entries.length === 1 ? { ...entries[0], weight: undefined } : entries;
    return {
      kind: 'open',
      rate: w.operationsPerSec > 0 ? sig(w.operationsPerSec) : this.hold(`${at}.rate`, 'operations/s', 'no window to rate over'),
      durationMs: this.opts.durationMs ?? DEFAULT_IMPORTED_DURATION_MS,
      entry: JSON.parse(JSON.stringify(entry)) as unknown,
      stack: [{ name: 'client', policy: { maxAttempts: this.hold(`${at}.stack.0.policy.maxAttempts`, attemptsEvidence(w.retriesSeen, w.maxAttempts, w.attemptsPerOperation, w.operations, 'op'), '') } }],
    };
  }
}
