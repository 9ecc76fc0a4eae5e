import type { AdaptiveConcurrencySpec, ServerLeaf } from '../../scenario.js';

/**
 * The server-side defences against overload of each backend whose state changes over the run:
 * shedding on utilisation (an EWMA of the busy fraction), an adaptive concurrency limit (AIMD or
 * gradient) and CoDel for the queue. Per-backend state lives in typed arrays; the farm asks before
 * it admits a request and tells after it serves one.
 */
export class OverloadDefences {
  /** Per backend: 1 when it sheds on utilisation / has an adaptive limit (checked per request). */
  readonly hasShedUtil: Uint8Array;
  readonly hasAdaptive: Uint8Array;
  /** Per backend: 1 when requests leaving its queue may be dropped (dropExpired or CoDel). */
  readonly dropsQueued: Uint8Array;
  /** Per backend: the adaptive concurrency limit (Infinity without one). */
  readonly acLimit: Float64Array;
  private readonly utilEwma: Float64Array;
  private readonly utilAt: Float64Array;
  private readonly acMinRtt: Float64Array;
  private readonly acMinRttAt: Float64Array;
  private readonly acSampleSum: Float64Array;
  private readonly acSampleCount: Int32Array;
  private readonly codelOverloaded: Uint8Array;
  private readonly codelMinSojourn: Float64Array;
  private readonly codelIntervalEnd: Float64Array;

  constructor(
    private readonly specs: ServerLeaf[],
    /** Per backend: requests in service, and the configured concurrency (the farm's arrays, read here). */
    private readonly busy: Int32Array,
    private readonly baseConcurrency: Float64Array,
    startMs: number,
  ) {
    const n = specs.length;
    this.hasShedUtil = Uint8Array.from(specs, (s) => (s.shedUtilization ? 1 : 0));
    this.hasAdaptive = Uint8Array.from(specs, (s) => (s.adaptiveConcurrency ? 1 : 0));
    this.dropsQueued = Uint8Array.from(specs, (s) => (s.dropExpired || s.codel ? 1 : 0));
    this.utilEwma = new Float64Array(n);
    this.utilAt = new Float64Array(n).fill(startMs);
    this.acLimit = Float64Array.from(specs, (s) => s.adaptiveConcurrency?.initialLimit ?? Infinity);
    this.acMinRtt = new Float64Array(n).fill(Infinity);
    this.acMinRttAt = new Float64Array(n).fill(startMs);
    this.acSampleSum = new Float64Array(n);
    this.acSampleCount = new Int32Array(n);
    this.codelOverloaded = new Uint8Array(n);
    this.codelMinSojourn = new Float64Array(n).fill(Infinity);
    this.codelIntervalEnd = Float64Array.from(specs, (s) => startMs + (s.codel?.intervalMs ?? 0));
  }

  /** The busy fraction of backend b, an EWMA over shedUtilization.windowMs (time-weighted), brought up to t. */
  utilization(b: number, t: number): number {
    const w = (this.specs[b] as ServerLeaf).shedUtilization?.windowMs as number;
    const dt = t - this.utilAt[b]!;
    const cap = this.baseConcurrency[b]!;
    const now = Number.isFinite(cap) ? this.busy[b]! / cap : 0;
    if (dt > 0) {
      const alpha = 1 - Math.exp(-dt / w);
      this.utilEwma[b] = this.utilEwma[b]! + alpha * (now - this.utilEwma[b]!);
      this.utilAt[b] = t;
    }
    return this.utilEwma[b]!;
  }

  /** A request was refused at the adaptive limit: an AIMD limit backs off. */
  aimdDrop(b: number): void {
    const ac = this.specs[b]?.adaptiveConcurrency;
    if (ac?.kind === 'aimd') this.acLimit[b] = Math.max(ac.minLimit, this.acLimit[b]! * ac.backoffRatio);
  }

  /** A request finished service after `rtt` ms (queue included), with `inflight` requests at the backend. */
  concurrencySample(b: number, rtt: number, inflight: number, t: number): void {
    const ac = this.specs[b]?.adaptiveConcurrency as AdaptiveConcurrencySpec;
    if (ac.kind === 'aimd') {
      // Netflix concurrency-limits AIMDLimit: a drop (here: slower than timeoutMs) backs off; a success while at least half the limit is in use adds 1.
      const limit = this.acLimit[b]!;
      if (rtt > ac.timeoutMs) this.acLimit[b] = Math.max(ac.minLimit, limit * ac.backoffRatio);
      else if (inflight * 2 >= limit) this.acLimit[b] = Math.min(ac.maxLimit, limit + 1);
      return;
    }
    if (t - this.acMinRttAt[b]! > ac.minRttWindowMs) {
      this.acMinRtt[b] = Infinity;
      this.acMinRttAt[b] = t;
    }
    if (rtt < this.acMinRtt[b]!) this.acMinRtt[b] = rtt;
    this.acSampleSum[b] = this.acSampleSum[b]! + rtt;
    this.acSampleCount[b] = this.acSampleCount[b]! + 1;
  }

  /** Gradient controller step (Envoy adaptive concurrency): limit x clamp(minRtt / sampleRtt) + sqrt(limit), smoothed. */
  gradientSample(b: number): void {
    const ac = this.specs[b]?.adaptiveConcurrency;
    const count = this.acSampleCount[b]!;
    if (ac?.kind !== 'gradient' || count === 0) return;
    const sample = this.acSampleSum[b]! / count;
    this.acSampleSum[b] = 0;
    this.acSampleCount[b] = 0;
    const minRtt = this.acMinRtt[b]!;
    const limit = this.acLimit[b]!;
    const gradient = Math.min(2, Math.max(0.5, minRtt / sample));
    const target = limit * gradient + Math.sqrt(limit);
    const next = (1 - ac.smoothing) * limit + ac.smoothing * target;
    this.acLimit[b] = Math.min(ac.maxLimit, Math.max(ac.minLimit, next));
  }

  /**
   * CoDel for RPC queues (Maurer, "Fail at Scale", ACM Queue 2015, after Nichols & Jacobson 2012):
   * track the smallest sojourn time of each interval; if it stayed above the target the queue is
   * overloaded and a request that waited more than the target is failed fast; otherwise only one
   * that waited more than a whole interval is.
   */
  codelDrops(b: number, c: { targetMs: number; intervalMs: number }, sojourn: number, t: number): boolean {
    if (t >= this.codelIntervalEnd[b]!) {
      this.codelOverloaded[b] = this.codelMinSojourn[b]! > c.targetMs ? 1 : 0;
      this.codelMinSojourn[b] = Infinity;
      this.codelIntervalEnd[b] = t + c.intervalMs;
    }
    if (sojourn < this.codelMinSojourn[b]!) this.codelMinSojourn[b] = sojourn;
    return sojourn > (this.codelOverloaded[b] === 1 ? c.targetMs : c.intervalMs);
  }
}
