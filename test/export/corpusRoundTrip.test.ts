import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CheckInputError, loadStacks, type CheckLayer } from '../../src/check/index.js';
import { EXPORT_FORMATS, exportPolicy, readBack, type ExportFormat } from '../../src/check/exportPolicy.js';
import type { PolicySpec } from '../../src/policy/types.js';

const FIXTURES = 'test/check/fixtures';

/** Every configuration of the real-file corpus (test/check/fixtures, see its README.md) that `check` reads: all but the `-bad` files. */
function corpus(dir = FIXTURES): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return corpus(path);
    return name.endsWith('.md') || /-bad\./.test(name) ? [] : [path];
  });
}

/** Every layer of every stack of a file, each with where it comes from. */
function layersOf(path: string): Array<{ where: string; layer: CheckLayer }> {
  const text = readFileSync(path, 'utf8');
  const load = (instance?: string) =>
    loadStacks(text, path, { readImport: (p: string) => ({ source: p, text: readFileSync(join(path, '..', p), 'utf8') }), ...(instance !== undefined ? { instance } : {}) }).flatMap((s) =>
      s.layers.map((layer) => ({ where: `${relative(FIXTURES, path)} ${instance ?? ''} ${s.route ?? s.name} ${layer.name}`, layer })),
    );
  try {
    return load();
  } catch (e) {
    // A file of several instances (resilience4j, Polly): every instance, as --instance names it.
    const names = e instanceof CheckInputError ? /choose one by (?:name|path): (.*)$/.exec(e.problems[0] ?? '')?.[1] : undefined;
    if (names === undefined) throw e;
    return names.split(', ').flatMap((n) => load(n));
  }
}

/** The fields that two policies hold differently (classes compare as sets). */
function differingFields(a: PolicySpec, b: PolicySpec): string[] {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)] as Array<keyof PolicySpec>);
  const canon = (k: keyof PolicySpec, v: unknown) => {
    if (k === 'retryOn') return JSON.stringify([...(v as string[])].sort());
    if (k === 'budget' && Array.isArray(v) && v.length === 0) return 'undefined';
    if (k === 'seeding' && (v as { kind?: string } | undefined)?.kind === 'independent') return 'undefined';
    return JSON.stringify(v, (_k, x: unknown) => (x === Infinity ? 'Infinity' : x)) ?? 'undefined';
  };
  return [...keys].filter((k) => canon(k, a[k]) !== canon(k, b[k]));
}

const exportOptions = (format: ExportFormat) => ({ name: 'rt', ...(format === 'aws-config' ? { sdk: 'js' as const } : {}) });
const readOptions = (format: ExportFormat) => (format === 'aws-config' ? { sdk: 'js' as const, profile: 'rt' } : {});

describe('import -> export -> import on the real-file corpus', () => {
  const files = corpus();

  it('covers the corpus and the public files added for the vocabulary', () => {
    expect(files.length).toBeGreaterThanOrEqual(30);
    for (const f of ['public/openliberty-istio-traffic.yaml', 'envoy-gateway-retry.routes.yaml', 'spring/resilience4j-spring-boot2-demo-application.yml', 'public/gateway-api-http-retries.yaml', 'public/grpc-java-retrying_service_config.json']) {
      expect(files).toContain(join(FIXTURES, f));
    }
  });

  it('every layer, every exporter: the same policy, or a warning naming each field, and each class lost or added', () => {
    let checked = 0;
    for (const file of files) {
      for (const { where, layer } of layersOf(file)) {
        for (const format of EXPORT_FORMATS) {
          const result = exportPolicy(layer.policy, format, exportOptions(format));
          const back = readBack(result.text, format, result.extension, readOptions(format));
          const what = `${where} -> ${format}`;
          for (const field of differingFields(layer.policy, back)) {
            const warning = result.warnings.find((w) => w.startsWith(`${field}:`));
            expect(warning, `${what}: ${field} differs without a warning`).toBeDefined();
            if (field !== 'retryOn') continue;
            for (const c of layer.policy.retryOn.filter((x) => !back.retryOn.includes(x))) expect(warning, `${what}: lost ${c}`).toContain(`${c} (`);
            for (const c of back.retryOn.filter((x) => !layer.policy.retryOn.includes(x))) expect(warning, `${what}: added ${c}`).toContain(`${c} (`);
          }
          checked++;
        }
      }
    }
    expect(checked).toBeGreaterThan(EXPORT_FORMATS.length * 30);
  });

  it('a format exported to itself keeps its classes exactly (Istio 5xx, Gateway API codes, gRPC statuses, resilience4j exceptions, Linkerd 5xx)', () => {
    const same: Array<[string, ExportFormat]> = [
      ['public/openliberty-istio-traffic.yaml', 'istio'],
      ['public/gateway-api-http-retries.yaml', 'gateway-api'],
      ['public/grpc-java-retrying_service_config.json', 'grpc-service-config'],
      ['public/linkerd-httproute-retries.yaml', 'linkerd'],
      ['spring/resilience4j-spring-boot2-demo-application.yml', 'resilience4j'],
    ];
    for (const [file, format] of same) {
      for (const { where, layer } of layersOf(join(FIXTURES, file))) {
        const result = exportPolicy(layer.policy, format, exportOptions(format));
        expect(result.warnings.filter((w) => w.startsWith('retryOn:')), `${where} -> ${format}`).toEqual([]);
        expect([...readBack(result.text, format, result.extension).retryOn].sort(), where).toEqual([...layer.policy.retryOn].sort());
      }
    }
  });
});

describe('what each format writes for the classes a file listed', () => {
  const only = (file: string, route?: string) => {
    const all = layersOf(join(FIXTURES, file));
    const found = route === undefined ? all : all.filter((l) => l.where.includes(route));
    expect(found.length, file).toBeGreaterThan(0);
    return found[found.length - 1]!.layer.policy;
  };

  it('Istio retryOn 5xx is written as 5xx by istio and envoy-route, and as the codes plus a warning by gateway-api and linkerd', () => {
    const policy = only('public/openliberty-istio-traffic.yaml', 'inventory');
    expect(policy.retryOn).toEqual(['500', '502', '503', '504', 'timeout', 'reset', 'connect-failure', 'refused-stream']);
    expect(exportPolicy(policy, 'istio', { name: 'rt' }).text).toContain('retryOn: 5xx');
    expect(exportPolicy(policy, 'envoy-route', { name: 'rt' }).text).toContain('retry_on: 5xx');
    const gw = exportPolicy(policy, 'gateway-api', { name: 'rt' });
    expect(gw.text).toMatch(/codes:\n\s+- 500\n\s+- 502\n\s+- 503\n\s+- 504\n/);
    const lost = gw.warnings.find((w) => w.startsWith('retryOn:'));
    expect(lost).toContain('gateway-api cannot say timeout, reset, connect-failure, refused-stream');
    const linkerd = exportPolicy(policy, 'linkerd', { name: 'rt' });
    expect(linkerd.text).toContain('retry.linkerd.io/http: 5xx');
    expect(linkerd.warnings.find((w) => w.startsWith('retryOn:'))).toContain('linkerd cannot say');
  });

  it("resilience4j's HttpServerErrorException and IOException are written back as themselves", () => {
    const text = 'resilience4j.retry:\n  instances:\n    backend:\n      maxAttempts: 3\n      retryExceptions:\n        - org.springframework.web.client.HttpServerErrorException\n        - java.io.IOException\n';
    const policy = loadStacks(text, 'application.yml')[0]!.layers[0]!.policy;
    const out = exportPolicy(policy, 'resilience4j', { name: 'backend' });
    expect(out.text).toContain('- org.springframework.web.client.HttpServerErrorException\n');
    expect(out.text).toContain('- java.io.IOException\n');
    expect(out.warnings.filter((w) => w.startsWith('retryOn:'))).toEqual([]);
  });

  it("Envoy Gateway's third route keeps connect-failure, and an export that cannot say it warns", () => {
    const policy = only('envoy-gateway-retry.routes.yaml', 'third-route-only-triggers');
    expect(policy.retryOn).toContain('connect-failure');
    const gw = exportPolicy(policy, 'gateway-api', { name: 'rt' });
    expect(gw.warnings.find((w) => w.startsWith('retryOn:'))).toContain('connect-failure (connection failure');
    expect(exportPolicy(policy, 'envoy-route', { name: 'rt' }).warnings.filter((w) => w.startsWith('retryOn:'))).toEqual([]);
  });
});
