/**
 * The calls one handler made, read from its spans: the attempts below a span of its service (its
 * client spans, or the server spans of other services it called without a client span), grouped
 * into calls by `http.request.resend_count` (an attempt with a count above 0 is a retry of the last
 * call to the same callee), and the calls grouped into steps by time.
 */
import { isClientSide, isServerSide, type Span } from './span.js';

/** The callee of an attempt: a service and endpoint, or a peer the caller named (`virtual`: no server span seen). */
export interface Callee {
  service: string;
  endpoint: string | undefined;
  virtual: boolean;
}

/** One attempt of a call, from the caller's side when it has a client span. */
export interface Attempt {
  callee: Callee;
  startUs: number;
  endUs: number;
  failed: boolean;
  resendCount: number | undefined;
  /** The server span that served it, when seen. */
  server: Span | undefined;
  /** Whether the caller wrote a client span for it (else its times are the server span's). */
  fromClient: boolean;
}

/** One call: its attempts, from the first's start to the last's end. */
export interface Call {
  key: string;
  callee: Callee;
  attempts: Attempt[];
  startUs: number;
  endUs: number;
  /** Whether its last attempt failed. */
  failed: boolean;
}

/** The name given to a peer a client span does not name (the servicegraph connector's `unknown`). */
export const UNKNOWN_PEER = 'unknown';

/** The key of a callee in maps: its service and endpoint. */
export function calleeKey(c: Callee): string {
  return JSON.stringify([c.service, c.endpoint ?? null]);
}

/** Spans of one trace by id, and each span's children. */
export class TraceIndex {
  private readonly children = new Map<string, Span[]>();
  private readonly ids = new Map<string, Span>();

  constructor(spans: readonly Span[]) {
    for (const s of spans) this.ids.set(`${s.traceId}/${s.spanId}`, s);
    for (const s of spans) {
      if (s.parentId === undefined) continue;
      const key = `${s.traceId}/${s.parentId}`;
      const list = this.children.get(key);
      if (list === undefined) this.children.set(key, [s]);
      else list.push(s);
    }
  }

  /** The spans whose parent is `s`. */
  childrenOf(s: Span): readonly Span[] {
    return this.children.get(`${s.traceId}/${s.spanId}`) ?? [];
  }

  /** Whether the span has no parent among the spans read (a root, or one whose parent was not sampled). */
  isRoot(s: Span): boolean {
    return s.parentId === undefined || !this.ids.has(`${s.traceId}/${s.parentId}`);
  }

  /**
   * Whether the span is a request served by its service: a server or consumer span, or a span of
   * no kind (Jaeger without `span.kind`, Zipkin local spans) that is a root or whose parent is of
   * another service (the first span of its service on the path).
   */
  isRequest(s: Span): boolean {
    if (isServerSide(s)) return true;
    if (s.kind !== 'unspecified') return false;
    const parent = s.parentId === undefined ? undefined : this.ids.get(`${s.traceId}/${s.parentId}`);
    return parent === undefined || parent.service !== s.service;
  }
}

/** The attempt a client span made: to the server span below it (of another service), or to the peer it names. */
export function clientAttempt(index: TraceIndex, c: Span): Attempt {
  const server = index.childrenOf(c).find((x) => isServerSide(x) || x.service !== c.service);
  const callee: Callee = server !== undefined ? { service: server.service, endpoint: server.name, virtual: false } : { service: c.peer ?? UNKNOWN_PEER, endpoint: undefined, virtual: true };
  return { callee, startUs: c.startUs, endUs: c.startUs + c.durationUs, failed: c.error || (server?.error ?? false), resendCount: c.resendCount, server, fromClient: true };
}

/** The attempts made below span `top` by its service: client spans of that service (through its internal spans) and other services' spans called directly. */
export function attemptsBelow(index: TraceIndex, top: Span): Attempt[] {
  const out: Attempt[] = [];
  // Iterative, each span once: an untrusted file may chain spans deeper than the call stack, or in a cycle.
  const seen = new Set<Span>([top]);
  const pending: Span[] = [top];
  for (let s = pending.pop(); s !== undefined; s = pending.pop()) {
    for (const c of index.childrenOf(s)) {
      if (seen.has(c)) continue;
      seen.add(c);
      if (c.service !== top.service) {
        out.push({ callee: { service: c.service, endpoint: c.name, virtual: false }, startUs: c.startUs, endUs: c.startUs + c.durationUs, failed: c.error, resendCount: undefined, server: c, fromClient: false });
      } else if (isClientSide(c)) out.push(clientAttempt(index, c));
      else if (!isServerSide(c)) pending.push(c);
    }
  }
  return out;
}

/** The calls of a handler's attempts: an attempt whose resend count is above 0 joins the last call to its callee; any other starts a call. */
export function callsOf(attempts: readonly Attempt[]): Call[] {
  const calls: Call[] = [];
  const last = new Map<string, Call>();
  for (const a of [...attempts].sort((x, y) => x.startUs - y.startUs)) {
    const key = calleeKey(a.callee);
    const prev = last.get(key);
    if (prev !== undefined && a.resendCount !== undefined && a.resendCount > 0) {
      prev.attempts.push(a);
      prev.endUs = Math.max(prev.endUs, a.endUs);
      prev.failed = a.failed;
      continue;
    }
    const call: Call = { key, callee: a.callee, attempts: [a], startUs: a.startUs, endUs: a.endUs, failed: a.failed };
    calls.push(call);
    last.set(key, call);
  }
  return calls;
}

/**
 * The steps of a handler's calls: calls that overlap in time are parallel, in one step; a call
 * that starts at or after the end of every call of the current step starts the next step.
 */
export function stepsOf(calls: readonly Call[]): Call[][] {
  const steps: Call[][] = [];
  let end = -Infinity;
  for (const c of [...calls].sort((x, y) => x.startUs - y.startUs)) {
    const current = steps[steps.length - 1];
    if (current !== undefined && c.startUs < end) {
      current.push(c);
      end = Math.max(end, c.endUs);
    } else {
      steps.push([c]);
      end = c.endUs;
    }
  }
  return steps;
}

/** The time covered by a set of intervals (their union), in the units given. */
export function coveredTime(intervals: ReadonlyArray<readonly [number, number]>): number {
  let total = 0;
  let curStart = -Infinity;
  let curEnd = -Infinity;
  for (const [s, e] of [...intervals].sort((a, b) => a[0] - b[0])) {
    if (s > curEnd) {
      if (curEnd > curStart) total += curEnd - curStart;
      curStart = s;
      curEnd = e;
    } else curEnd = Math.max(curEnd, e);
  }
  if (curEnd > curStart) total += curEnd - curStart;
  return total;
}

/** The most intervals open at one time (an interval is open from its start, inclusive, to its end, exclusive). */
export function peakOverlap(intervals: ReadonlyArray<readonly [number, number]>): number {
  const events: Array<[number, number]> = [];
  for (const [s, e] of intervals) events.push([s, 1], [e, -1]);
  events.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let open = 0;
  let peak = 0;
  for (const [, d] of events) peak = Math.max(peak, (open += d));
  return peak;
}
