import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { scenarioSchema } from '../../src/experiment/index.js';
import { docsAlong, titled } from '../../src/policy/schema/schemaDocs.js';
import { paramLabel, paramsInWords, paramTitle, paramUnit } from '../../src/report/metrics.js';

/** A dotted path with a segment that is a name (`workload.clients`, `stack.0.policy`), not a number such as `p99.9`. */
const RAW_PATH = /\b[a-z][A-Za-z0-9]*(\.[0-9]+)*\.[A-Za-z][A-Za-z0-9]*/;

describe('axis titles of layer selectors', () => {
  it('name the field as the layer\'s own, and the layers by name, never the raw selector', () => {
    const pairs = [
      ['layers[sdk].policy.maxAttempts', 'stack.0.policy.maxAttempts', 'layer sdk'],
      ['layers[app,client].policy.perAttemptTimeoutMs', 'stack.0.policy.perAttemptTimeoutMs', 'layers app, client'],
      ['services.frontend.layers[sidecar].policy.backoff.baseMs', 'stack.0.policy.backoff.baseMs', 'layer sidecar of services.frontend'],
      ['layers[*].policy.budget.ratio', 'stack.0.policy.budget.ratio', 'every layer'],
    ] as const;
    for (const [selector, field, layers] of pairs) {
      expect(paramLabel(selector)).toBe(`${paramLabel(field).replace(/ at layer 0$/, '')} at ${layers}`);
      expect(paramUnit(selector)).toBe(paramUnit(field));
      expect(paramTitle(selector)).not.toContain('layers[');
    }
  });
});

describe('axis titles of swept fields come from the schema documentation', () => {
  it('names the fields as their documentation does, with units', () => {
    const titles = Object.fromEntries(
      [
        'workload.clients',
        'workload.rate',
        'workload.thinkMs.mean',
        'workload.deadlineMs',
        'workload.permanentErrorFraction',
        'stack.0.policy.backoff.baseMs',
        'stack.0.policy.backoff.capMs',
        'stack.1.policy.backoff.kind',
        'stack.1.policy.backoff.multiplier',
        'stack.2.policy.maxAttempts',
        'stack.0.policy.tickMs',
        'stack.0.policy.perAttemptTimeoutMs',
        'stack.0.policy.retryAfter',
        'stack.0.instances',
        'leaf.concurrency',
        'leaf.queueLimit',
        'leaf.serviceMs.mean',
        'leaf.serviceMs.dist',
        'leaf.faults.0.probability',
        'network.hopMs.mean',
        'warmupMs',
      ].map((p) => [p, paramTitle(p)]),
    );
    expect(titles).toEqual({
      'workload.clients': 'Clients',
      'workload.rate': 'Arrival rate (operations/s)',
      'workload.thinkMs.mean': 'Think time mean (ms)',
      'workload.deadlineMs': 'Deadline (ms)',
      'workload.permanentErrorFraction': 'Bad-input fraction',
      'stack.0.policy.backoff.baseMs': 'Backoff base at layer 0 (ms)',
      'stack.0.policy.backoff.capMs': 'Backoff cap at layer 0 (ms)',
      'stack.1.policy.backoff.kind': 'Backoff kind at layer 1',
      'stack.1.policy.backoff.multiplier': 'Backoff multiplier at layer 1 (x)',
      'stack.2.policy.maxAttempts': 'Attempts at layer 2',
      'stack.0.policy.tickMs': 'Timer tick at layer 0 (ms)',
      'stack.0.policy.perAttemptTimeoutMs': 'Per-attempt timeout at layer 0 (ms)',
      'stack.0.policy.retryAfter': 'Retry-After handling at layer 0',
      'stack.0.instances': 'Instances at layer 0',
      'leaf.concurrency': 'Server workers',
      'leaf.queueLimit': 'Queue limit (requests)',
      'leaf.serviceMs.mean': 'Server service time mean (ms)',
      'leaf.serviceMs.dist': 'Server service time distribution',
      'leaf.faults.0.probability': 'Fault probability (fraction)',
      'network.hopMs.mean': 'Network hop mean (ms)',
      'warmupMs': 'Warm-up (ms)',
    });
  });

  it('put a value in words with its unit, but no unit word after a share or a multiplier', () => {
    expect(paramsInWords({ 'leaf.faults.0.probability': 1 })).toBe('Fault probability = 1');
    expect(paramsInWords({ 'stack.1.policy.backoff.multiplier': 2 })).toBe('Backoff multiplier at layer 1 = 2x');
    expect(paramsInWords({ 'leaf.queueLimit': 50 })).toBe('Queue limit = 50 requests');
    expect(paramsInWords({ 'stack.0.policy.tickMs': 15.6 })).toBe('Timer tick at layer 0 = 15.6 ms');
  });

  it('reads the title and unit a field documents, not a table of the report', () => {
    const leaf = docsAlong(scenarioSchema, ['leaf', 'concurrency']);
    expect(leaf?.at(-1)).toMatchObject({ title: 'Workers', unit: 'workers' });
    const backoff = docsAlong(scenarioSchema, ['stack', '0', 'policy', 'backoff', 'baseMs']);
    expect(backoff?.map((d) => d.title)).toEqual([undefined, undefined, undefined, undefined, 'Backoff base']);
    expect(docsAlong(scenarioSchema, ['leaf', 'noSuchField'])).toBeNull();
    expect(docsAlong(scenarioSchema, ['stack', 'first'])).toBeNull();

    // Through wrappers (default, optional, transform) and unions, the documented title is found.
    const schema = z.object({
      a: z.union([z.number(), z.object({ inner: titled(z.number().default(1), 'Inner thing', 'widgets') })]).optional(),
    });
    expect(docsAlong(schema, ['a', 'inner'])?.at(-1)).toEqual({ title: 'Inner thing', unit: 'widgets' });
  });

  it('gives a field nobody titled by hand a readable title from its name and unit', () => {
    expect(paramTitle('stack.1.policy.maxRetryAfterMs')).toBe('Max retry after at layer 1 (ms)');
    expect(paramTitle('leaf.shedRetryAfterMs')).toBe('Server shed retry after (ms)');
    expect(paramTitle('stack.0.policy.budget.ratio')).toBe('Budget ratio at layer 0');
    expect(paramLabel('leaf.capacity.0.concurrency')).toBe('Server concurrency');
    expect(paramUnit('stack.0.policy.totalTimeoutMs')).toBe('ms');
    // A path the schema does not know still reads as words, never as the path.
    expect(paramTitle('custom.someFieldName')).toBe('Some field name');
  });
});

/** Every title found in a vega-lite spec (axes, legends, encodings, the chart's own). */
function titlesOf(spec: unknown, into: string[] = []): string[] {
  if (Array.isArray(spec)) for (const s of spec) titlesOf(s, into);
  else if (spec !== null && typeof spec === 'object') {
    for (const [k, v] of Object.entries(spec)) {
      if (k === 'title' && (typeof v === 'string' || Array.isArray(v))) into.push([v].flat().join(' '));
      else if (k === 'title' && v !== null && typeof v === 'object' && 'text' in v) into.push([(v as { text: unknown }).text].flat().join(' '));
      titlesOf(v, into);
    }
  }
  return into;
}

describe('shipped reports, quick and full (regenerated with every change of the charts)', () => {
  const pagesIn = (root: string): string[] =>
    readdirSync(root)
      .map((d) => join(root, d, 'index.html'))
      .filter((f) => existsSync(f));
  const pages = [...pagesIn('reports'), ...pagesIn(join('reports', 'full'))];

  it('have charts to look at', () => {
    expect(pagesIn('reports').length).toBeGreaterThanOrEqual(12);
    expect(pagesIn(join('reports', 'full')).length).toBeGreaterThanOrEqual(12);
  });

  it('title no axis, legend or chart with a raw dotted path', () => {
    let charts = 0;
    const raw: string[] = [];
    for (const page of pages) {
      const html = readFileSync(page, 'utf8');
      const m = /<script type="application\/json" id="(?:retrystorm|tune)-charts">([^<]*)<\/script>/.exec(html);
      if (!m) continue;
      const specs = JSON.parse(m[1] as string) as Array<{ spec: unknown }>;
      charts += specs.length;
      for (const t of specs.flatMap((s) => titlesOf(s.spec))) if (RAW_PATH.test(t)) raw.push(`${page}: ${t}`);
    }
    expect(charts).toBeGreaterThan(80);
    expect(raw).toEqual([]);
  });
});
