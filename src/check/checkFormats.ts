import type { ImportFormat } from './layerImport.js';

/** What `retrystorm check` reads besides the real configuration formats: its own stack files and experiment files. */
export type CheckOwnFormat = 'stack-file' | 'experiment';

/**
 * Every format `retrystorm check` reads, with what tells a file of it apart, in the order the
 * messages list them: the project's own files, then each import format (one entry per
 * IMPORT_FORMATS entry, which the type enforces). A file in none of them is refused with
 * {@link unrecognisedFileMessage}, which lists them all.
 */
export const CHECK_FORMATS: Readonly<Record<CheckOwnFormat | ImportFormat, string>> = {
  'stack-file': 'a stack file (an object with "layers")',
  experiment: 'an experiment file ("scenario" or "parts")',
  'grpc-service-config': 'a gRPC service config ("methodConfig")',
  'envoy-route': 'an Envoy route, virtual host, route configuration, bootstrap or config_dump (a "retry_policy" or "retryPolicy")',
  'aws-config': 'an AWS shared config (INI: [default], [profile name])',
  'aws-env': 'AWS environment variables (a .env file, or AWS_... "KEY=value" lines)',
  istio: 'an Istio VirtualService (networking.istio.io)',
  linkerd: 'a Linkerd ServiceProfile (linkerd.io) or an HTTPRoute with retry.linkerd.io annotations',
  'gateway-api': 'a Gateway API HTTPRoute (gateway.networking.k8s.io)',
  'envoy-gateway': 'an Envoy Gateway BackendTrafficPolicy (gateway.envoyproxy.io)',
  'ingress-nginx': 'an ingress-nginx Ingress (networking.k8s.io) or a ConfigMap with proxy-next-upstream keys',
  resilience4j: 'a resilience4j Spring Boot configuration (application.yml or application.properties with resilience4j.retry, nested or dotted)',
  polly: 'a Polly / Microsoft.Extensions.Http.Resilience appsettings.json (MaxRetryAttempts, BackoffType...)',
};

/** The formats of Kubernetes resources, in the order `check` looks for them in a file of resources (meshFormatOf). */
export const RESOURCE_FORMATS = ['istio', 'linkerd', 'envoy-gateway', 'gateway-api', 'ingress-nginx'] as const satisfies readonly ImportFormat[];

/** The message for a file `check` cannot read: `<source>: is in no format check reads (<why>); it reads ...` with every format of {@link CHECK_FORMATS}. */
export function unrecognisedFileMessage(source: string, why: string): string {
  const formats = Object.values(CHECK_FORMATS);
  return `${source}: is in no format check reads (${why}); it reads ${formats.slice(0, -1).join(', ')}, or ${formats[formats.length - 1] ?? ''}`;
}
