import { VERSION } from '../version.js';
import { CANCELLED_RESPONSE, LOST_RESPONSE, type LayerTraceEvent, type ServiceTraceEvent, type TraceEvent, type TraceSite } from './trace.js';

/**
 * Simulated requests as OpenTelemetry traces: the trace events of sampled operations
 * ({@link TraceEvent}) turned into an OTLP/JSON `ExportTraceServiceRequest` (the protobuf JSON
 * mapping of opentelemetry-proto's `opentelemetry/proto/trace/v1/trace.proto`: lowerCamelCase
 * fields, trace and span ids as hex, times as decimal strings of Unix nanoseconds, enums as
 * integers), which Jaeger, Tempo and the OpenTelemetry Collector read. Pure: it builds objects.
 *
 * Each layer's call is a span (INTERNAL) and each of its attempts a child span (CLIENT, with
 * `http.request.resend_count` from the second attempt on); a call of the layer below is a child of
 * the attempt that made it; in a service graph each request that reaches a service is a span (SERVER)
 * of that service, a child of the last layer's attempt that sent it: a handler, whose steps' calls
 * are its children, or, at an endpoint without steps, the fleet's serving of it (from its arrival to
 * the fleet's answer; answered on arrival, it takes no time).
 * Spans carry `service.name` through their resource: the caller's service for a call's layers, and
 * for the workload's own stack {@link WORKLOAD_SERVICE}, or in a graph with several workloads the
 * workload's name (every span of such an operation also carries it as `retrystorm.workload`).
 */

/** Simulated time 0 as Unix time in ms: 2000-01-01T00:00:00Z, so that every trace has the same, recognisable dates. */
export const OTLP_EPOCH_MS = 946_684_800_000;

/** The `service.name` of the spans of a workload's own stack (its clients), unless a graph's several workloads name theirs. */
export const WORKLOAD_SERVICE = 'workload';

/** The attribute that names an operation's workload on each of its spans, in a graph with several workloads. */
export const WORKLOAD_ATTRIBUTE = 'retrystorm.workload';

/** The instrumentation scope every span is reported under. */
export const OTLP_SCOPE_NAME = 'retrystorm';

/** `Span.SpanKind` of trace.proto (enums are integers in OTLP/JSON). */
export const SpanKind = { INTERNAL: 1, SERVER: 2, CLIENT: 3 } as const;

/** `Status.StatusCode` of trace.proto. */
export const StatusCode = { UNSET: 0, OK: 1, ERROR: 2 } as const;

/** An attribute value (`AnyValue` of common.proto; int64 as a decimal string, as the protobuf JSON mapping writes it). */
export type OtlpAnyValue = { stringValue: string } | { intValue: string } | { doubleValue: number } | { boolValue: boolean };

/** A `KeyValue` of common.proto. */
export interface OtlpKeyValue {
  key: string;
  value: OtlpAnyValue;
}

/** A `Span.Event`. */
export interface OtlpSpanEvent {
  timeUnixNano: string;
  name: string;
  attributes: OtlpKeyValue[];
}

/** A `Span` (the fields this writer sets; `parentSpanId` is absent on a root span). */
export interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes: OtlpKeyValue[];
  events: OtlpSpanEvent[];
  status: { code: number; message?: string };
}

/** `ExportTraceServiceRequest` (collector/trace/v1/trace_service.proto), whose JSON is also `TracesData`'s. */
export interface OtlpTraces {
  resourceSpans: Array<{
    resource: { attributes: OtlpKeyValue[] };
    scopeSpans: Array<{ scope: { name: string; version: string }; spans: OtlpSpan[] }>;
  }>;
}

/** What the spans cannot know from the events alone. */
export interface OtlpOptions {
  /** The names of the workload's own stack's layers, top first. */
  layers: string[];
  /** In a graph with several workloads: each one's stack's layer names, by the workload's name (else {@link layers}). */
  workloadLayers?: ReadonlyMap<string, string[]>;
  /** A graph's entry services (the services the workload's stack calls); none for a stack run. */
  entryServices: string[];
  /** 32 bits written first in every trace id, so that the traces of several files differ (e.g. a cell's index). */
  traceIdPrefix: number;
  /** Written next in every trace id: the run's seed. */
  seed: number;
  /** Added to every resource's attributes (e.g. the cell's part and variant). */
  resourceAttributes?: OtlpKeyValue[];
}

/** An attribute of any simple value: strings, booleans, integers (as int64) and other numbers (as doubles). */
export function attr(key: string, v: string | number | boolean): OtlpKeyValue {
  if (typeof v === 'string') return { key, value: { stringValue: v } };
  if (typeof v === 'boolean') return { key, value: { boolValue: v } };
  return { key, value: Number.isSafeInteger(v) ? { intValue: String(v) } : { doubleValue: v } };
}

/** A simulated time (ms from the run's start) as Unix nanoseconds from {@link OTLP_EPOCH_MS}, exact to the nanosecond. */
export function unixNanos(tMs: number): string {
  return (BigInt(OTLP_EPOCH_MS) * 1_000_000n + BigInt(Math.round(tMs * 1e6))).toString();
}

function hex(n: number, digits: number): string {
  return (n >>> 0).toString(16).padStart(digits, '0');
}

/** An outcome that is an HTTP status (`503`), as a number; NaN otherwise (`timeout`, `reset`, gRPC statuses...). */
function httpStatus(outcome: string): number {
  return /^\d{3}$/.test(outcome) ? Number(outcome) : NaN;
}

/**
 * The attributes that say how an attempt, a call or a handler ended: `retrystorm.outcome`, and
 * `http.response.status_code` for an HTTP status or else `error.type` (`timeout`, `reset`, a gRPC
 * status...). The span is an error on a client for every outcome but 200, on a server for a 5xx or
 * a failure without a status (the OpenTelemetry HTTP conventions leave a server's 4xx unset).
 */
function outcomeAttributes(outcome: string, span: BuildSpan, server: boolean): void {
  span.attrs.push(attr('retrystorm.outcome', outcome));
  const status = httpStatus(outcome);
  const isStatus = status === status;
  if (isStatus) span.attrs.push(attr('http.response.status_code', status));
  else span.attrs.push(attr('error.type', outcome));
  const error = server ? !isStatus || status >= 500 : status !== 200;
  if (error) span.status = { code: StatusCode.ERROR, message: outcome };
}

/** A span being built. */
interface BuildSpan {
  parent: number;
  name: string;
  kind: number;
  service: string;
  start: number;
  end: number;
  attrs: OtlpKeyValue[];
  events: Array<{ tMs: number; name: string; attrs: OtlpKeyValue[] }>;
  status: { code: number; message?: string };
}

/** A layer's call being built: its span, its attempts' spans by number, the latest. */
interface OpenFrame {
  span: number;
  attempts: Map<number, number>;
  last: number;
}

/** A last layer's attempt waiting to be matched with the handler it reached (graphs). */
interface SentRequest {
  span: number;
  /** `service.endpoint` called, or null from the workload's stack (an entry service). */
  target: string | null;
  matched: boolean;
}

/** Marks a span that was still open when the run ended (it ends at the last event). */
const UNFINISHED = 'retrystorm.unfinished';

/** The spans of one operation, built from its events in order. */
class OperationSpans {
  readonly spans: BuildSpan[] = [];
  /** The operation's workload, in a graph with several (its events name it). */
  workload: string | undefined;
  private readonly frames = new Map<string, OpenFrame>();
  private readonly handlers: Array<{ span: number; service: string; endpoint: string; open: boolean }> = [];
  private readonly sent: SentRequest[] = [];
  /** The SERVER spans of requests at fleets of endpoints without steps, by service and fleet slot. */
  private readonly fleetRequests = new Map<string, number>();

  constructor(
    private readonly options: OtlpOptions,
    private readonly stackId: (site: TraceSite | undefined) => number,
  ) {}

  private open(s: Omit<BuildSpan, 'end' | 'events' | 'status'>): number {
    this.spans.push({ ...s, end: NaN, events: [], status: { code: StatusCode.UNSET } });
    return this.spans.length - 1;
  }

  add(e: TraceEvent): void {
    if (e.workload !== undefined) this.workload = e.workload;
    if ('service' in e) this.service(e);
    else this.layer(e);
  }

  private layer(e: LayerTraceEvent): void {
    const site = e.site;
    const key = `${this.stackId(site)}:${e.frame}`;
    const layers = site?.layers ?? (e.workload === undefined ? undefined : this.options.workloadLayers?.get(e.workload)) ?? this.options.layers;
    const name = layers[e.layer] ?? `layer${e.layer}`;
    if (e.event === 'call') {
      const attrs = [attr('retrystorm.layer', name), attr('retrystorm.layer.index', e.layer)];
      if (site) attrs.push(attr('retrystorm.call', `${site.caller} -> ${site.callee}.${site.endpoint}`));
      if (Number.isFinite(e.deadlineAtMs)) attrs.push(attr('retrystorm.deadline_ms', e.deadlineAtMs));
      const service = site?.caller ?? e.workload ?? WORKLOAD_SERVICE;
      const span = this.open({ parent: this.callParent(e, site), name, kind: SpanKind.INTERNAL, service, start: e.tMs, attrs });
      this.frames.set(key, { span, attempts: new Map(), last: -1 });
      return;
    }
    const frame = this.frames.get(key);
    if (!frame) return; // its call began before the events kept
    const call = this.spans[frame.span] as BuildSpan;
    switch (e.event) {
      case 'attempt': {
        const attrs = [attr('retrystorm.layer', name), attr('retrystorm.attempt', e.attempt)];
        if (e.attempt > 1) attrs.push(attr('http.request.resend_count', e.attempt - 1));
        if (Number.isFinite(e.timeoutMs)) attrs.push(attr('retrystorm.timeout_ms', e.timeoutMs));
        const span = this.open({ parent: frame.span, name: `${name} attempt`, kind: SpanKind.CLIENT, service: call.service, start: e.tMs, attrs });
        frame.attempts.set(e.attempt, span);
        frame.last = span;
        if (e.layer === layers.length - 1) this.sent.push({ span, target: site ? `${site.callee}.${site.endpoint}` : null, matched: false });
        return;
      }
      case 'outcome': {
        const span = frame.attempts.get(e.attempt) ?? frame.last;
        const s = this.spans[span];
        if (!s || s.end === s.end) return;
        s.end = e.tMs;
        outcomeAttributes(e.outcome, s, false);
        if (e.retryAfterMs !== undefined) s.attrs.push(attr('retrystorm.retry_after_ms', e.retryAfterMs));
        // A request answered before any handler took it was refused without one (a full queue, an
        // outage); one that timed out may still be taken later (a timeout is not a cancellation).
        const req = this.sent.find((r) => r.span === span);
        if (req && !req.matched && e.outcome !== 'timeout') req.matched = true;
        return;
      }
      case 'wait':
        call.events.push({
          tMs: e.tMs,
          name: 'retrystorm.backoff',
          attrs: [attr('retrystorm.retry', e.retry), attr('retrystorm.ceiling_ms', e.ceilingMs), attr('retrystorm.backoff_ms', e.backoffMs), attr('retrystorm.wait_ms', e.waitMs), attr('retrystorm.fits', e.fits)],
        });
        return;
      case 'give-up':
        for (const span of frame.attempts.values()) {
          const s = this.spans[span] as BuildSpan;
          if (s.end !== s.end) {
            s.end = e.tMs;
            s.attrs.push(attr('retrystorm.abandoned', true));
          }
        }
        call.end = e.tMs;
        call.attrs.push(attr('retrystorm.give_up_reason', e.reason), attr('retrystorm.attempts', e.attempts));
        outcomeAttributes(e.outcome, call, false);
        if (e.reason !== 'success') call.status = { code: StatusCode.ERROR, message: e.reason };
        this.frames.delete(key);
        return;
    }
  }

  /** The parent of a layer's call: the attempt of the layer above that made it, or at the top of a call's stack the caller's handler. */
  private callParent(e: Extract<LayerTraceEvent, { event: 'call' }>, site: TraceSite | undefined): number {
    if (e.layer > 0) {
      const above = this.frames.get(`${this.stackId(site)}:${e.parent}`);
      return above ? (above.last >= 0 ? above.last : above.span) : -1;
    }
    if (!site) return -1;
    for (let i = this.handlers.length - 1; i >= 0; i--) {
      const h = this.handlers[i];
      if (h && h.open && h.service === site.caller) return h.span;
    }
    return -1;
  }

  /** A request reached `service`'s `endpoint` at t: its SERVER span, a child of the last layer's attempt that sent it (the first not yet matched). */
  private serverSpan(service: string, endpoint: string, t: number): number {
    const target = `${service}.${endpoint}`;
    const entry = this.options.entryServices.includes(service);
    const req = this.sent.find((r) => !r.matched && r.target === target) ?? (entry ? this.sent.find((r) => !r.matched && r.target === null) : undefined);
    if (req) req.matched = true;
    const attrs = [attr('retrystorm.endpoint', endpoint)];
    return this.open({ parent: req ? req.span : -1, name: endpoint, kind: SpanKind.SERVER, service, start: t, attrs });
  }

  /** A request for an endpoint without steps: its SERVER span opens when it reaches the fleet and ends with the fleet's response. */
  private fleetEvent(e: Extract<ServiceTraceEvent, { event: 'request' | 'response' }>): void {
    const key = `${e.service}#${e.slot}`;
    if (e.event === 'request') {
      this.fleetRequests.set(key, this.serverSpan(e.service, e.endpoint, e.tMs));
      return;
    }
    const span = this.fleetRequests.get(key);
    if (span === undefined) return;
    this.fleetRequests.delete(key);
    const s = this.spans[span] as BuildSpan;
    s.end = e.tMs;
    if (e.outcome === LOST_RESPONSE || e.outcome === CANCELLED_RESPONSE) {
      s.attrs.push(attr(`retrystorm.${e.outcome}`, true));
      s.status = { code: StatusCode.ERROR, message: e.outcome };
    } else outcomeAttributes(e.outcome, s, true);
  }

  private service(e: ServiceTraceEvent): void {
    if (e.event === 'request' || e.event === 'response') {
      this.fleetEvent(e);
      return;
    }
    if (e.event === 'handler') {
      const span = this.serverSpan(e.service, e.endpoint, e.tMs);
      this.handlers.push({ span, service: e.service, endpoint: e.endpoint, open: true });
      return;
    }
    let h;
    for (let i = this.handlers.length - 1; i >= 0 && !h; i--) {
      const c = this.handlers[i];
      if (c && c.open && c.service === e.service && c.endpoint === e.endpoint) h = c;
    }
    if (!h) return;
    const s = this.spans[h.span] as BuildSpan;
    switch (e.event) {
      case 'step':
        s.events.push({ tMs: e.tMs, name: 'retrystorm.step', attrs: [attr('retrystorm.step', e.step + 1), attr('retrystorm.step.kind', e.kind), ...(e.kind === 'call' ? [attr('retrystorm.calls', e.calls.join(', ')), attr('retrystorm.join', e.join)] : [])] });
        return;
      case 'join':
        s.events.push({ tMs: e.tMs, name: 'retrystorm.join', attrs: [attr('retrystorm.step', e.step + 1), attr('retrystorm.join', e.join), attr('retrystorm.decision', e.decision), attr('retrystorm.degraded', e.degraded)] });
        return;
      case 'cache':
        s.events.push({ tMs: e.tMs, name: 'retrystorm.cache', attrs: [attr('retrystorm.cache', e.cache), attr('retrystorm.cache.key', e.key), attr('retrystorm.cache.result', e.what)] });
        return;
      case 'answer':
        h.open = false;
        s.end = e.tMs;
        outcomeAttributes(e.outcome, s, true);
        return;
      case 'lost':
        h.open = false;
        s.end = e.tMs;
        s.attrs.push(attr('retrystorm.lost', true));
        s.status = { code: StatusCode.ERROR, message: 'lost' };
        return;
    }
  }

  /** Spans still open end at `endMs`, marked unfinished. */
  close(endMs: number): void {
    for (const s of this.spans) {
      if (s.end === s.end) continue;
      s.end = Math.max(endMs, s.start);
      s.attrs.push(attr(UNFINISHED, true));
    }
  }
}

/**
 * The OTLP/JSON traces of the operations whose events are given (in the order the run emitted
 * them; the events of several operations may interleave): one trace per operation, its spans
 * grouped by service (one `resourceSpans` each, `service.name` on its resource, in the order the
 * services first appear). Spans still open at the last event end there, marked
 * `retrystorm.unfinished`.
 */
export function otlpTraces(events: readonly TraceEvent[], options: OtlpOptions): OtlpTraces {
  const stacks = new Map<TraceSite, number>();
  const stackId = (site: TraceSite | undefined): number => {
    if (!site) return 0;
    let id = stacks.get(site);
    if (id === undefined) stacks.set(site, (id = stacks.size + 1));
    return id;
  };
  const ops = new Map<number, OperationSpans>();
  let lastMs = 0;
  for (const e of events) {
    let op = ops.get(e.op);
    if (!op) ops.set(e.op, (op = new OperationSpans(options, stackId)));
    op.add(e);
    lastMs = Math.max(lastMs, e.tMs);
  }
  const byService = new Map<string, OtlpSpan[]>();
  const head = `${hex(options.traceIdPrefix, 8)}${hex(options.seed, 8)}`;
  for (const [op, spans] of ops) {
    spans.close(lastMs);
    const traceId = `${head}${hex(Math.floor((op + 1) / 2 ** 32), 8)}${hex(op + 1, 8)}`;
    const spanId = (i: number) => `${hex(op + 1, 8)}${hex(i + 1, 8)}`;
    const workload = spans.workload === undefined ? [] : [attr(WORKLOAD_ATTRIBUTE, spans.workload)];
    spans.spans.forEach((s, i) => {
      const list = byService.get(s.service) ?? [];
      byService.set(s.service, list);
      list.push({
        traceId,
        spanId: spanId(i),
        ...(s.parent >= 0 ? { parentSpanId: spanId(s.parent) } : {}),
        name: s.name,
        kind: s.kind,
        startTimeUnixNano: unixNanos(s.start),
        endTimeUnixNano: unixNanos(s.end),
        attributes: [...s.attrs, ...workload],
        events: s.events.map((ev) => ({ timeUnixNano: unixNanos(ev.tMs), name: ev.name, attributes: ev.attrs })),
        status: s.status,
      });
    });
  }
  return {
    resourceSpans: [...byService].map(([service, spans]) => ({
      resource: { attributes: [attr('service.name', service), ...(options.resourceAttributes ?? [])] },
      scopeSpans: [{ scope: { name: OTLP_SCOPE_NAME, version: VERSION }, spans }],
    })),
  };
}
