import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { traceScenario } from '../../src/cli/trace.js';
import type { LayerTraceEvent } from '../../src/model/trace.js';
import { OTLP_EPOCH_MS } from '../../src/model/traceOtlp.js';
import { expandExperiment, parseExperimentText } from '../../src/experiment/index.js';
import { MAX_TRACED_OPERATIONS, traceCell } from '../../src/sweep/cellTraces.js';
import { cli, tempDir, writeExperiment } from '../cli/helpers.js';

// ---------------------------------------------------------------------------------------------
// The OTLP/JSON shape, from the field lists of opentelemetry-proto
// `opentelemetry/proto/trace/v1/trace.proto` (commit 05e412fbc8a6d4a5af55ddc1b56c7d09f0ffcba9:
// ResourceSpans 1-3, ScopeSpans 1-3, Span 1-16, Span.Event 1-4, Span.Link 1-6, Status 2-3, SpanKind
// 0-5, StatusCode 0-2), `common/v1/common.proto` (AnyValue's oneof, KeyValue, InstrumentationScope)
// and `resource/v1/resource.proto`, written with the protobuf JSON mapping that OTLP/JSON uses:
// lowerCamelCase names, bytes ids as hex (OTLP/JSON's exception to base64), 64-bit integers as
// decimal strings, enums as integers. Every field not in these lists is an error.
// ---------------------------------------------------------------------------------------------

type Json = Record<string, unknown>;

function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Fails with the path of the first problem. */
class Shape {
  problems: string[] = [];

  fields(v: unknown, at: string, allowed: string[]): v is Json {
    if (!isObject(v)) {
      this.problems.push(`${at}: not an object`);
      return false;
    }
    for (const k of Object.keys(v)) if (!allowed.includes(k)) this.problems.push(`${at}.${k}: not a field of the message`);
    return true;
  }

  check(ok: boolean, at: string, rule: string): void {
    if (!ok) this.problems.push(`${at}: ${rule}`);
  }

  list(v: unknown, at: string, each: (x: unknown, at: string) => void, optional = true): void {
    if (v === undefined && optional) return;
    if (!Array.isArray(v)) {
      this.problems.push(`${at}: not an array`);
      return;
    }
    v.forEach((x, i) => each(x, `${at}.${i}`));
  }

  /** A fixed64/uint64 (decimal string, or a number), or a uint32 when `bits` is 32. */
  uint(v: unknown, at: string, bits: 32 | 64, optional = true): void {
    if (v === undefined && optional) return;
    const ok = bits === 64 ? (typeof v === 'string' && /^\d+$/.test(v)) || (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) : typeof v === 'number' && Number.isInteger(v) && v >= 0 && v < 2 ** 32;
    this.check(ok, at, `must be a uint${bits}`);
  }

  hexId(v: unknown, at: string, bytes: 8 | 16, optional: boolean): void {
    if ((v === undefined || v === '') && optional) return;
    this.check(typeof v === 'string' && new RegExp(`^[0-9a-f]{${bytes * 2}}$`).test(v) && !/^0+$/.test(v), at, `must be ${bytes} bytes in hex, not all zero`);
  }

  anyValue(v: unknown, at: string): void {
    if (!this.fields(v, at, ['stringValue', 'boolValue', 'intValue', 'doubleValue', 'arrayValue', 'kvlistValue', 'bytesValue'])) return;
    const set = Object.keys(v);
    this.check(set.length <= 1, at, 'a oneof sets one field');
    if ('stringValue' in v) this.check(typeof v.stringValue === 'string', `${at}.stringValue`, 'string');
    if ('boolValue' in v) this.check(typeof v.boolValue === 'boolean', `${at}.boolValue`, 'bool');
    if ('intValue' in v) this.check((typeof v.intValue === 'string' && /^-?\d+$/.test(v.intValue)) || Number.isSafeInteger(v.intValue), `${at}.intValue`, 'int64');
    if ('doubleValue' in v) this.check(typeof v.doubleValue === 'number', `${at}.doubleValue`, 'double');
    if ('arrayValue' in v && this.fields(v.arrayValue, `${at}.arrayValue`, ['values'])) this.list(v.arrayValue.values, `${at}.arrayValue.values`, (x, a) => this.anyValue(x, a));
    if ('kvlistValue' in v && this.fields(v.kvlistValue, `${at}.kvlistValue`, ['values'])) this.attributes(v.kvlistValue.values, `${at}.kvlistValue.values`);
  }

  attributes(v: unknown, at: string): void {
    const keys = new Set<string>();
    this.list(v, at, (kv, a) => {
      if (!this.fields(kv, a, ['key', 'value'])) return;
      this.check(typeof kv.key === 'string' && kv.key !== '', `${a}.key`, 'a non-empty string');
      this.check(!keys.has(kv.key as string), `${a}.key`, `unique (${String(kv.key)} repeats)`);
      keys.add(kv.key as string);
      this.anyValue(kv.value, `${a}.value`);
    });
  }

  span(s: unknown, at: string): void {
    const fields = ['traceId', 'spanId', 'traceState', 'parentSpanId', 'flags', 'name', 'kind', 'startTimeUnixNano', 'endTimeUnixNano', 'attributes', 'droppedAttributesCount', 'events', 'droppedEventsCount', 'links', 'droppedLinksCount', 'status'];
    if (!this.fields(s, at, fields)) return;
    this.hexId(s.traceId, `${at}.traceId`, 16, false);
    this.hexId(s.spanId, `${at}.spanId`, 8, false);
    this.hexId(s.parentSpanId, `${at}.parentSpanId`, 8, true);
    this.check(typeof s.name === 'string' && s.name !== '', `${at}.name`, 'a non-empty string');
    this.check(s.kind === undefined || (Number.isInteger(s.kind) && (s.kind as number) >= 0 && (s.kind as number) <= 5), `${at}.kind`, 'a SpanKind (0-5)');
    this.uint(s.startTimeUnixNano, `${at}.startTimeUnixNano`, 64, false);
    this.uint(s.endTimeUnixNano, `${at}.endTimeUnixNano`, 64, false);
    if (typeof s.startTimeUnixNano === 'string' && typeof s.endTimeUnixNano === 'string') this.check(BigInt(s.endTimeUnixNano) >= BigInt(s.startTimeUnixNano), at, 'end >= start');
    this.uint(s.flags, `${at}.flags`, 32);
    for (const d of ['droppedAttributesCount', 'droppedEventsCount', 'droppedLinksCount']) this.uint(s[d], `${at}.${d}`, 32);
    this.attributes(s.attributes, `${at}.attributes`);
    this.list(s.events, `${at}.events`, (e, a) => {
      if (!this.fields(e, a, ['timeUnixNano', 'name', 'attributes', 'droppedAttributesCount'])) return;
      this.uint(e.timeUnixNano, `${a}.timeUnixNano`, 64, false);
      this.check(typeof e.name === 'string' && e.name !== '', `${a}.name`, 'a non-empty string');
      this.attributes(e.attributes, `${a}.attributes`);
    });
    this.list(s.links, `${at}.links`, (l, a) => {
      if (!this.fields(l, a, ['traceId', 'spanId', 'traceState', 'attributes', 'droppedAttributesCount', 'flags'])) return;
      this.hexId(l.traceId, `${a}.traceId`, 16, false);
      this.hexId(l.spanId, `${a}.spanId`, 8, false);
    });
    if (s.status !== undefined && this.fields(s.status, `${at}.status`, ['message', 'code'])) {
      this.check(s.status.code === undefined || [0, 1, 2].includes(s.status.code as number), `${at}.status.code`, 'a StatusCode (0-2)');
      this.check(s.status.message === undefined || typeof s.status.message === 'string', `${at}.status.message`, 'a string');
    }
  }

  request(v: unknown): void {
    if (!this.fields(v, '$', ['resourceSpans'])) return;
    this.list(
      v.resourceSpans,
      '$.resourceSpans',
      (rs, at) => {
        if (!this.fields(rs, at, ['resource', 'scopeSpans', 'schemaUrl'])) return;
        if (rs.resource !== undefined && this.fields(rs.resource, `${at}.resource`, ['attributes', 'droppedAttributesCount', 'entityRefs'])) this.attributes(rs.resource.attributes, `${at}.resource.attributes`);
        this.list(rs.scopeSpans, `${at}.scopeSpans`, (ss, a) => {
          if (!this.fields(ss, a, ['scope', 'spans', 'schemaUrl'])) return;
          if (ss.scope !== undefined && this.fields(ss.scope, `${a}.scope`, ['name', 'version', 'attributes', 'droppedAttributesCount'])) this.attributes(ss.scope.attributes, `${a}.scope.attributes`);
          this.list(ss.spans, `${a}.spans`, (s, b) => this.span(s, b));
        });
      },
      false,
    );
  }
}

function shapeProblems(v: unknown): string[] {
  const s = new Shape();
  s.request(v);
  return s.problems;
}

// ---------------------------------------------------------------------------------------------
// Loading the spans back: each with its service, attributes as plain values, times in ms.
// ---------------------------------------------------------------------------------------------

interface Loaded {
  service: string;
  traceId: string;
  spanId: string;
  parent: string | undefined;
  name: string;
  kind: number;
  startMs: number;
  endMs: number;
  attrs: Record<string, string | number | boolean>;
  status: number;
  children: Loaded[];
}

function plain(v: Json): string | number | boolean {
  if ('intValue' in v) return Number(v.intValue);
  return (v.stringValue ?? v.boolValue ?? v.doubleValue) as string | number | boolean;
}

function ms(nanos: string): number {
  return Number(BigInt(nanos) - BigInt(OTLP_EPOCH_MS) * 1_000_000n) / 1e6;
}

/** The spans of an OTLP/JSON text, and the roots of each trace with their children in start order. */
function load(text: string): { spans: Loaded[]; roots: Loaded[] } {
  const doc = JSON.parse(text) as unknown;
  expect(shapeProblems(doc)).toEqual([]);
  const spans: Loaded[] = [];
  for (const rs of (doc as { resourceSpans: Json[] }).resourceSpans) {
    const resource = Object.fromEntries(((rs.resource as Json).attributes as Json[]).map((a) => [a.key, plain(a.value as Json)]));
    for (const ss of rs.scopeSpans as Json[]) {
      for (const s of ss.spans as Json[]) {
        spans.push({
          service: resource['service.name'] as string,
          traceId: s.traceId as string,
          spanId: s.spanId as string,
          parent: s.parentSpanId as string | undefined,
          name: s.name as string,
          kind: s.kind as number,
          startMs: ms(s.startTimeUnixNano as string),
          endMs: ms(s.endTimeUnixNano as string),
          attrs: Object.fromEntries((s.attributes as Json[]).map((a) => [a.key, plain(a.value as Json)])),
          status: (s.status as Json).code as number,
          children: [],
        });
      }
    }
  }
  const byId = new Map(spans.map((s) => [`${s.traceId}/${s.spanId}`, s]));
  expect(byId.size).toBe(spans.length);
  const roots: Loaded[] = [];
  for (const s of spans) {
    if (s.parent === undefined) roots.push(s);
    else {
      const p = byId.get(`${s.traceId}/${s.parent}`);
      expect(p, `the parent of ${s.name}`).toBeDefined();
      p?.children.push(s);
    }
  }
  for (const s of spans) s.children.sort((a, b) => a.startMs - b.startMs);
  return { spans, roots };
}

const CLIENT = 3;
const SERVER = 2;
const INTERNAL = 1;
const ERROR = 2;
const UNSET = 0;

describe('trace --otlp: a scripted operation as OpenTelemetry spans', () => {
  it('two retries: one call span, three attempt spans (resend_count 1 and 2), statuses and times from the event log', async () => {
    const flags = { script: '503:10,503:10,200:5', backoff: 'constant', baseMs: '7' };
    const { timeline } = traceScenario(undefined, flags);
    const r = await cli(['trace', '--script', flags.script, '--backoff', 'constant', '--base-ms', '7', '--otlp']);
    expect(r.err).toBe('');
    const { spans, roots } = load(r.out);
    expect(spans).toHaveLength(4);
    expect(roots).toHaveLength(1);
    const call = roots[0] as Loaded;
    const events = timeline as LayerTraceEvent[];
    const giveUp = events.find((e) => e.event === 'give-up');
    expect(call).toMatchObject({ service: 'workload', name: 'client', kind: INTERNAL, status: UNSET, startMs: 0, endMs: giveUp?.tMs });
    expect(call.attrs).toMatchObject({ 'retrystorm.layer': 'client', 'retrystorm.give_up_reason': 'success', 'retrystorm.attempts': 3, 'http.response.status_code': 200 });
    const starts = events.filter((e) => e.event === 'attempt');
    const ends = events.filter((e) => e.event === 'outcome');
    expect(call.children.map((a) => [a.name, a.kind, a.startMs, a.endMs, a.attrs['http.request.resend_count'], a.attrs['http.response.status_code'], a.status])).toEqual([
      ['client attempt', CLIENT, starts[0]?.tMs, ends[0]?.tMs, undefined, 503, ERROR],
      ['client attempt', CLIENT, starts[1]?.tMs, ends[1]?.tMs, 1, 503, ERROR],
      ['client attempt', CLIENT, starts[2]?.tMs, ends[2]?.tMs, 2, 200, UNSET],
    ]);
    // 10 ms answers, 7 ms waits: the log's own times, to the nanosecond.
    expect(starts.map((e) => e.tMs)).toEqual([0, 17, 34]);
    expect(call.children.every((a) => a.children.length === 0)).toBe(true);
  });

  it('two layers that give up: each lower call is a child of the attempt above that made it, the give-up reason and an error status on the calls', async () => {
    const dir = tempDir();
    const file = writeExperiment(dir, 's.json', {
      name: 'two-layers',
      scenario: {
        workload: { kind: 'burst', clients: 1 },
        stack: [
          { name: 'app', policy: { maxAttempts: 2, backoff: { kind: 'none' } } },
          { name: 'sdk', policy: { maxAttempts: 2, backoff: { kind: 'none' } } },
        ],
        leaf: { kind: 'script', script: ['503:5'] },
      },
    });
    const r = await cli(['trace', file, '--otlp']);
    expect(r.err).toBe('');
    const { spans, roots } = load(r.out);
    expect(spans).toHaveLength(1 + 2 + 2 + 4);
    const app = roots[0] as Loaded;
    expect(app.attrs).toMatchObject({ 'retrystorm.give_up_reason': 'attempt-limit', 'retrystorm.attempts': 2, 'http.response.status_code': 503 });
    expect(app.status).toBe(ERROR);
    const shape = (s: Loaded): unknown => [s.name, s.attrs['http.request.resend_count'] ?? 0, s.children.map(shape)];
    expect(shape(app)).toEqual([
      'app',
      0,
      [
        ['app attempt', 0, [['sdk', 0, [['sdk attempt', 0, []], ['sdk attempt', 1, []]]]]],
        ['app attempt', 1, [['sdk', 0, [['sdk attempt', 0, []], ['sdk attempt', 1, []]]]]],
      ],
    ]);
    for (const sdk of app.children.map((a) => a.children[0] as Loaded)) expect([sdk.status, sdk.attrs['retrystorm.give_up_reason']]).toEqual([ERROR, 'attempt-limit']);
  });

  it('a call abandoned by a timeout above goes on beside the retry\'s call: each stays under the attempt that made it', async () => {
    // app's attempt 1 stops waiting at 10 while sdk's call A (which ignores the deadline app hands
    // down) is in its second attempt, answering at 16; app's attempt 2 makes call B at 10, which
    // answers at 18: the two sdk calls overlap.
    const file = writeExperiment(tempDir(), 's.json', {
      name: 'overlap',
      scenario: {
        workload: { kind: 'burst', clients: 1 },
        stack: [
          { name: 'app', policy: { maxAttempts: 2, perAttemptTimeoutMs: 10, backoff: { kind: 'none' } } },
          { name: 'sdk', policy: { maxAttempts: 2, backoff: { kind: 'none' }, deadlineMode: 'none' } },
        ],
        network: { hopMs: 0 },
        leaf: { kind: 'script', script: ['503:8', '200:8'] },
      },
    });
    const r = await cli(['trace', file, '--otlp']);
    expect(r.err).toBe('');
    const { roots } = load(r.out);
    const tree = (s: Loaded): unknown => [s.name, s.startMs, s.endMs, s.attrs['retrystorm.outcome'], s.children.map(tree)];
    expect(roots.map(tree)).toEqual([
      [
        'app',
        0,
        18,
        '200',
        [
          ['app attempt', 0, 10, 'timeout', [['sdk', 0, 16, '200', [['sdk attempt', 0, 8, '503', []], ['sdk attempt', 8, 16, '200', []]]]]],
          ['app attempt', 10, 18, '200', [['sdk', 10, 18, '200', [['sdk attempt', 10, 18, '200', []]]]]],
        ],
      ],
    ]);
  });

  it('a graph: each service\'s handler, and a leaf service\'s serving of a request, a SERVER span of its own service, a child of the attempt that reached it; a retried call reaches a second handler', async () => {
    // fe calls mid through to-mid (2 attempts); mid calls db through sdk; db answers 503 then 200,
    // so mid's first handler fails, to-mid retries and mid's second handler succeeds.
    const file = writeExperiment(tempDir(), 'g.json', {
      name: 'graph-spans',
      scenario: {
        workload: { kind: 'burst', clients: 1, entry: { service: 'fe' } },
        stack: [{ name: 'app', policy: { maxAttempts: 1 } }],
        network: { hopMs: 1 },
        services: {
          fe: { fleet: { kind: 'server', serviceMs: 1 }, endpoints: { page: { steps: [{ kind: 'call', calls: [{ service: 'mid', stack: [{ name: 'to-mid', policy: { maxAttempts: 2, backoff: { kind: 'constant', baseMs: 3 } } }] }] }] } } },
          mid: { fleet: { kind: 'server', serviceMs: 1 }, endpoints: { get: { steps: [{ kind: 'work' }, { kind: 'call', calls: [{ service: 'db', stack: [{ name: 'sdk', policy: { maxAttempts: 1 } }] }] }] } } },
          db: { fleet: { kind: 'script', script: ['503:2', '200:2'] }, endpoints: { get: {} } },
        },
      },
    });
    const r = await cli(['trace', file, '--otlp']);
    expect(r.err).toBe('');
    const { roots } = load(r.out);
    expect(roots).toHaveLength(1);
    const tree = (s: Loaded): unknown => [`${s.service}:${s.name}`, s.kind, s.status, s.children.map(tree)];
    // db's endpoint has no steps: its fleet's serving of each request is a SERVER span of db under mid's attempt.
    const midHandler = (status: number) => ['mid:get', SERVER, status, [['mid:sdk', INTERNAL, status, [['mid:sdk attempt', CLIENT, status, [['db:get', SERVER, status, []]]]]]]];
    expect(tree(roots[0] as Loaded)).toEqual([
      'workload:app',
      INTERNAL,
      UNSET,
      [
        [
          'workload:app attempt',
          CLIENT,
          UNSET,
          [['fe:page', SERVER, UNSET, [['fe:to-mid', INTERNAL, UNSET, [['fe:to-mid attempt', CLIENT, ERROR, [midHandler(ERROR)]], ['fe:to-mid attempt', CLIENT, UNSET, [midHandler(UNSET)]]]]]]],
        ],
      ],
    ]);
  });
});

describe('run --traces otlp: sampled operations of every cell, in files named by index', () => {
  const experiment = {
    name: 'traced-run',
    seed: 7,
    scenario: {
      workload: { kind: 'open', rate: 200, durationMs: 200 },
      stack: [{ name: 'sdk', policy: { maxAttempts: 3, backoff: { kind: 'full-jitter', baseMs: 5, capMs: 50 } } }],
      leaf: { kind: 'server', concurrency: 1, serviceMs: { dist: 'exponential', mean: 6 }, faults: [{ fromMs: 0, probability: 0.3, status: 503 }] },
      horizonMs: 2000,
    },
    variants: { a: {}, b: { 'stack.0.policy.maxAttempts': 1 } },
    replications: 1,
  };

  it('every N-th operation of replication 0 is one trace, the same bytes from the same seed', async () => {
    const dir = tempDir();
    const file = writeExperiment(dir, 'e.json', experiment);
    const r = await cli(['run', file, '--out', join(dir, 'o1'), '--quiet', '--workers', '1', '--traces', 'otlp', '--trace-sample', '3']);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    const tdir = join(dir, 'o1', 'traced-run', 'traces');
    expect(readdirSync(tdir).sort()).toEqual(['cell-0.otlp.json', 'cell-1.otlp.json']);
    const texts = ['cell-0.otlp.json', 'cell-1.otlp.json'].map((f) => readFileSync(join(tdir, f), 'utf8'));
    // The same seed gives the same bytes: each cell traced again in this process.
    const parsed = parseExperimentText(JSON.stringify(experiment), 'e.json');
    const expanded = parsed.ok ? expandExperiment(parsed.experiment, { quick: false }) : null;
    const cells = expanded?.ok ? expanded.plan.parts.flatMap((p) => p.cells) : [];
    expect(cells.map((c, i) => JSON.stringify(traceCell(c, i, experiment.seed, 3)) + '\n')).toEqual(texts);
    const summary = JSON.parse(readFileSync(join(dir, 'o1', 'traced-run', 'summary.json'), 'utf8')) as { cells: Array<{ metrics: Record<string, { mean: number }> }> };
    for (const [i, text] of texts.entries()) {
      const { roots, spans } = load(text);
      const offered = summary.cells[i]?.metrics['operations.offered']?.mean as number;
      // Operations 0, 3, 6, ...: one root call span each.
      expect(roots).toHaveLength(Math.min(Math.ceil(offered / 3), MAX_TRACED_OPERATIONS));
      expect(roots.length).toBeGreaterThan(5);
      expect(new Set(spans.map((s) => s.traceId)).size).toBe(roots.length);
      expect(roots.every((s) => s.name === 'sdk' && s.children.length === s.attrs['retrystorm.attempts'])).toBe(true);
    }
  });

  it('--trace-sample without --traces, and --traces with --shard, are refused before anything runs', async () => {
    const dir = tempDir();
    const file = writeExperiment(dir, 'e.json', experiment);
    const r1 = await cli(['run', file, '--out', join(dir, 'o'), '--trace-sample', '3']);
    expect([r1.code, r1.err]).toEqual([2, 'error: --trace-sample needs --traces otlp\n']);
    const r0 = await cli(['run', file, '--out', join(dir, 'o'), '--traces', 'otlp', '--shard', '0/2']);
    expect([r0.code, r0.err]).toEqual([2, 'error: --traces cannot be combined with --shard (trace the whole plan in one run)\n']);
    expect(readdirSync(dir).includes('o')).toBe(false);
  });

  it('a graph with several workloads: each operation one trace under its workload (service.name and retrystorm.workload), the services\' spans in the trace of the operation that reached them', async () => {
    const dir = tempDir();
    const open = (rate: number, service: string) => ({ kind: 'open', rate, durationMs: 300, entry: { service } });
    const retried = { maxAttempts: 3, backoff: { kind: 'constant', baseMs: 1 } };
    const graph = writeExperiment(dir, 'g.json', {
      name: 'two-workloads',
      seed: 3,
      scenario: {
        workloads: { web: { ...open(200, 'api'), stack: [{ name: 'app', policy: retried }] }, batch: { ...open(100, 'db'), stack: [{ name: 'job', policy: retried }] } },
        services: {
          api: { fleet: { kind: 'server', concurrency: 2, serviceMs: { dist: 'exponential', mean: 2 } }, endpoints: { get: { steps: [{ kind: 'work' }, { kind: 'call', calls: [{ service: 'db', stack: [{ name: 'sdk', policy: retried }] }] }] } } },
          db: { fleet: { kind: 'server', serviceMs: 1, faults: [{ fromMs: 0, probability: 0.2, status: 503 }] }, endpoints: { get: { steps: [{ kind: 'work' }] } } },
        },
        horizonMs: 3000,
      },
      replications: 1,
    });
    const r = await cli(['run', graph, '--out', join(dir, 'o'), '--quiet', '--workers', '1', '--traces', 'otlp', '--trace-sample', '1']);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    const { spans, roots } = load(readFileSync(join(dir, 'o', 'two-workloads', 'traces', 'cell-0.otlp.json'), 'utf8'));
    const byWorkload = (w: string) => roots.filter((s) => s.service === w);
    expect(byWorkload('web').length).toBeGreaterThan(20);
    expect(byWorkload('batch').length).toBeGreaterThan(10);
    expect(byWorkload('web').length + byWorkload('batch').length).toBe(roots.length);
    expect(new Set(spans.map((s) => s.traceId)).size).toBe(roots.length);
    const retriedCalls = spans.filter((s) => s.kind === INTERNAL && (s.attrs['retrystorm.attempts'] as number) > 1);
    expect(retriedCalls.length).toBeGreaterThan(0);
    for (const root of roots) {
      const w = root.service;
      expect(root.name).toBe(w === 'web' ? 'app' : 'job');
      const tree: Loaded[] = [];
      const walk = (s: Loaded) => (tree.push(s), s.children.forEach(walk));
      walk(root);
      // Every span of the operation names its workload; each attempt of the workload's stack that was served reached one handler of its entry in this trace.
      expect(tree.every((s) => s.attrs['retrystorm.workload'] === w)).toBe(true);
      for (const attempt of tree.filter((s) => s.service === w && s.kind === CLIENT)) {
        expect(attempt.children.every((c) => c.service === (w === 'web' ? 'api' : 'db') && c.kind === SERVER)).toBe(true);
        expect(attempt.children.length).toBeLessThanOrEqual(1);
      }
      // Each api handler's calls to db are in its trace, each served attempt reaching a db handler.
      for (const handler of tree.filter((s) => s.service === 'api' && s.kind === SERVER && s.status === UNSET)) {
        const calls = handler.children.filter((c) => c.name === 'sdk');
        expect(calls).toHaveLength(1);
        expect(calls[0]?.children.every((a) => a.kind === CLIENT && a.children.length === 1 && a.children[0]?.service === 'db')).toBe(true);
      }
    }
    // No span is left without its operation: every server span has the client that reached it.
    expect(spans.filter((s) => s.kind === SERVER).every((s) => s.parent !== undefined)).toBe(true);
  });
});
