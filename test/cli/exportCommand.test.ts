import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { exportCommand, type ExportFlags } from '../../src/cli/exportCommand.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

function run(format: string, file: string | undefined, flags: ExportFlags = {}, cwd = ROOT) {
  let stdout = '';
  let stderr = '';
  const code = exportCommand({ stdout: (s) => (stdout += s), stderr: (s) => (stderr += s), cwd }, format, file, flags);
  return { code, stdout, stderr };
}

describe('retrystorm export', () => {
  it('writes a layer of a stack file; what the format cannot express is a warning', () => {
    const r = run('linkerd', 'test/check/fixtures/three-layers.yaml', { layer: 'proxy' });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      [
        'apiVersion: v1',
        'kind: Service',
        'metadata:',
        '  name: proxy',
        '  annotations:',
        '    retry.linkerd.io/http: 5xx,409',
        '    retry.linkerd.io/limit: "2"',
        '    retry.linkerd.io/timeout: 500ms',
        '    timeout.linkerd.io/request: 3s',
        '',
      ].join('\n'),
    );
    expect(r.stderr.split('\n').filter((l) => l !== '')).toEqual([
      'warning: backoff: envoy U[0, min(50 ms x 2^(r-1), 500 ms)) whole ms cannot be expressed in linkerd; it reads back as no wait',
      // Envoy's 5xx also retries resets, connect failures and refused streams, which Linkerd's 5xx (500-599) does not.
      'warning: retryOn: linkerd cannot say reset, connect-failure, refused-stream: the written configuration does not retry reset (connection or stream reset after the request was sent), connect-failure (connection failure (the request never reached the server)), refused-stream (HTTP/2 REFUSED_STREAM (not processed)); it reads back as 500 502 503 504 conflict timeout',
      'warning: budget: envoy max_retries 3 cannot be expressed in linkerd; it reads back as none',
    ]);
  });

  it('--strict makes a warning an error and writes nothing (exit 1)', () => {
    const r = run('linkerd', 'test/check/fixtures/three-layers.yaml', { layer: 'proxy', strict: true });
    expect([r.code, r.stdout]).toEqual([1, '']);
    expect(r.stderr.startsWith('error: backoff: ')).toBe(true);
  });

  it('a preset, written to a file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'export-'));
    const r = run('grpc-service-config', undefined, { preset: 'grpc', out: 'sc.json', name: 'shop.v1.inventory' }, dir);
    // The grpc preset retries the HTTP 503 of the simulator's leaves, which a gRPC service config cannot say.
    expect([r.code, r.stdout, r.stderr]).toEqual([
      0,
      '',
      'warning: retryOn: grpc-service-config cannot say 503: the written configuration does not retry 503 (HTTP 503 unavailable / overloaded); it also retries unavailable (gRPC UNAVAILABLE); it reads back as unavailable\n',
    ]);
    expect(JSON.parse(readFileSync(join(dir, 'sc.json'), 'utf8')).retryThrottling).toEqual({ maxTokens: 10, tokenRatio: 0.1 });
  });

  it('bad input: exit 2 with one error line per problem', () => {
    expect(run('istoi', undefined, { preset: 'grpc', sdk: 'go' })).toEqual({
      code: 2,
      stdout: '',
      stderr: 'error: the format must be one of envoy-route, grpc-service-config, istio, linkerd, gateway-api, aws-config, resilience4j (got "istoi")\nerror: --sdk must be one of js, python (got "go")\n',
    });
    expect(run('istio', 'test/check/fixtures/three-layers.yaml').stderr).toBe('error: test/check/fixtures/three-layers.yaml: has 3 layers; choose one with --layer (layers: app, sdk, proxy)\n');
    expect(run('istio', 'test/check/fixtures/three-layers.yaml', { layer: 'db' }).stderr).toBe('error: test/check/fixtures/three-layers.yaml: has no layer named "db" (layers: app, sdk, proxy)\n');
    expect(run('istio', 'nope.yaml').stderr).toBe('error: nope.yaml: cannot read (no such file)\n');
  });
});
