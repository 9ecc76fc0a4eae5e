/**
 * A known small graph written as OTLP JSON spans by hand, for the importer's round trip. Two
 * workloads: `browser` (a client span per attempt, 10 operations/s) calls frontend `page`, which
 * works ~2 ms, then calls users `get` and recs `get` in parallel (recs fails 20% of the time and
 * frontend still succeeds: an optional call; users' first attempt fails 10% of the time and is
 * retried with http.request.resend_count = 1), then db `query` (a sequential step); `batch`
 * (4 operations/s; 10% of its operations retried, the first attempt failing at reports with no
 * failed call: reports' own error) calls reports `run`, which works ~3 ms and calls db `query`.
 * Every hop takes 0.5 ms each way; db works ~1 ms, users ~4 ms, recs ~6 ms.
 */

/** The truth the importer should recover. */
export const TRUTH = {
  windowSec: 60,
  browserPerSec: 10,
  batchPerSec: 4,
  batchRetryFraction: 0.1,
  usersRetryFraction: 0.1,
  recsFailFraction: 0.2,
  hopMs: 0.5,
  workMs: { frontend: 2, users: 4, recs: 6, db: 1, reports: 3 },
} as const;

/** A small seeded generator (a 32-bit LCG): the fixture is the same every run. */
class Lcg {
  private s: number;
  constructor(seed: number) {
    this.s = seed >>> 0;
  }
  next(): number {
    this.s = (Math.imul(this.s, 1664525) + 1013904223) >>> 0;
    return this.s / 2 ** 32;
  }
  /** A time within 10% of `mean`. */
  around(mean: number): number {
    return mean * (0.9 + 0.2 * this.next());
  }
}

interface RawSpan {
  service: string;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: 1 | 2 | 3;
  startMs: number;
  endMs: number;
  error?: boolean;
  resend?: number;
}

/** The OTLP JSON document of the spans (one resource per service). */
function otlp(spans: readonly RawSpan[]): unknown {
  const services = [...new Set(spans.map((s) => s.service))];
  const nanos = (ms: number) => (BigInt(Math.round(ms * 1000)) * 1000n + 1_700_000_000_000_000_000n).toString();
  return {
    resourceSpans: services.map((service) => ({
      resource: { attributes: [{ key: 'service.name', value: { stringValue: service } }] },
      scopeSpans: [
        {
          scope: { name: 'synthetic' },
          spans: spans
            .filter((s) => s.service === service)
            .map((s) => ({
              traceId: s.traceId,
              spanId: s.spanId,
              parentSpanId: s.parentSpanId ?? '',
              name: s.name,
              kind: s.kind,
              startTimeUnixNano: nanos(s.startMs),
              endTimeUnixNano: nanos(s.endMs),
              ...(s.error ? { status: { code: 2 } } : {}),
              ...(s.resend !== undefined ? { attributes: [{ key: 'http.request.resend_count', value: { intValue: String(s.resend) } }] } : {}),
            })),
        },
      ],
    })),
  };
}

/** The synthetic spans as OTLP JSON text. */
export function syntheticOtlp(seed = 45): string {
  const rnd = new Lcg(seed);
  const spans: RawSpan[] = [];
  let ids = 0;
  const id = () => (++ids).toString(16).padStart(16, '0');
  const hop = TRUTH.hopMs;
  /** One attempt from `caller` (its span `parent`) to a leaf-like handler; returns its end. */
  const call = (trace: string, parent: string, caller: string, callee: string, endpoint: string, at: number, opts: { serveMs: number; error?: boolean; resend?: number; children?: (serverId: string, start: number) => number }): number => {
    const clientId = id();
    const serverId = id();
    const serverStart = at + hop;
    const serverEnd = opts.children ? opts.children(serverId, serverStart) : serverStart + opts.serveMs;
    const end = serverEnd + hop;
    spans.push({ service: caller, traceId: trace, spanId: clientId, parentSpanId: parent, name: `call ${callee}`, kind: 3, startMs: at, endMs: end, ...(opts.error ? { error: true } : {}), ...(opts.resend !== undefined ? { resend: opts.resend } : {}) });
    spans.push({ service: callee, traceId: trace, spanId: serverId, parentSpanId: clientId, name: endpoint, kind: 2, startMs: serverStart, endMs: serverEnd, ...(opts.error ? { error: true } : {}) });
    return end;
  };
  const w = TRUTH.workMs;
  let traces = 0;
  for (let i = 0; i < TRUTH.windowSec * TRUTH.browserPerSec; i++) {
    const trace = (++traces).toString(16).padStart(32, '0');
    const at = (i + rnd.next()) * (1000 / TRUTH.browserPerSec);
    const rootId = id();
    const page = (serverId: string, start: number): number => {
      const t1 = start + rnd.around(w.frontend);
      // Step 1: users (retried once 10% of the time) and recs (fails 20% of the time), in parallel.
      let usersEnd: number;
      if (rnd.next() < TRUTH.usersRetryFraction) {
        const first = call(trace, serverId, 'frontend', 'users', 'get', t1, { serveMs: rnd.around(w.users), error: true, resend: 0 });
        usersEnd = call(trace, serverId, 'frontend', 'users', 'get', first + 1, { serveMs: rnd.around(w.users), resend: 1 });
      } else usersEnd = call(trace, serverId, 'frontend', 'users', 'get', t1, { serveMs: rnd.around(w.users), resend: 0 });
      const recsEnd = call(trace, serverId, 'frontend', 'recs', 'get', t1, { serveMs: rnd.around(w.recs), error: rnd.next() < TRUTH.recsFailFraction, resend: 0 });
      // Step 2: db, after both.
      return call(trace, serverId, 'frontend', 'db', 'query', Math.max(usersEnd, recsEnd), { serveMs: rnd.around(w.db), resend: 0 });
    };
    const clientId = rootId;
    const serverId = id();
    const serverStart = at + hop;
    const serverEnd = page(serverId, serverStart);
    const end = serverEnd + hop;
    spans.push({ service: 'browser', traceId: trace, spanId: clientId, name: 'GET /page', kind: 3, startMs: at, endMs: end, resend: 0 });
    spans.push({ service: 'frontend', traceId: trace, spanId: serverId, parentSpanId: clientId, name: 'page', kind: 2, startMs: serverStart, endMs: serverEnd });
  }
  for (let i = 0; i < TRUTH.windowSec * TRUTH.batchPerSec; i++) {
    const trace = (++traces).toString(16).padStart(32, '0');
    const at = (i + rnd.next()) * (1000 / TRUTH.batchPerSec);
    const rootId = id();
    const run = (failing: boolean) => (serverId: string, start: number): number => {
      const t1 = start + rnd.around(w.reports);
      if (failing) return t1;
      return call(trace, serverId, 'reports', 'db', 'query', t1, { serveMs: rnd.around(w.db), resend: 0 });
    };
    const retried = rnd.next() < TRUTH.batchRetryFraction;
    // The root is an internal span of the batch job; each attempt is a client span under it.
    let t = at;
    if (retried) t = call(trace, rootId, 'batch', 'reports', 'run', t, { serveMs: 0, error: true, resend: 0, children: run(true) }) + 5;
    const end = call(trace, rootId, 'batch', 'reports', 'run', t, { serveMs: 0, resend: retried ? 1 : 0, children: run(false) });
    spans.push({ service: 'batch', traceId: trace, spanId: rootId, name: 'job', kind: 1, startMs: at, endMs: end });
  }
  return JSON.stringify(otlp(spans));
}
