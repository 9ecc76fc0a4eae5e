import { listNames } from '../policy/schema/describeValue.js';
import { z } from 'zod';
import { fields as f } from '../policy/schema/fields.js';
import { CheckInputError } from './CheckInputError.js';
import { CHECK_FORMATS, RESOURCE_FORMATS } from './checkFormats.js';
import { withFormatFixes } from './formatFixes.js';
import type { ImportedLayer } from './ImportedLayer.js';
import { ENVOY_GATEWAY_GROUP, importEnvoyGateway, importEnvoyGatewayRoutes } from './importEnvoyGateway.js';
import { GATEWAY_API_GROUP, GATEWAY_API_X_GROUP, importGatewayApi, importGatewayApiRoutes } from './importGatewayApi.js';
import { importIstio, importIstioRoutes, ISTIO_GROUP } from './importIstio.js';
import { AWS_SDKS, type AwsSdk } from './importAwsConfig.js';
import { importAwsEnv } from './importAwsEnv.js';
import { importIngressNginx, NGINX_KEYS } from './importIngressNginx.js';
import { hasLinkerdRetries, importLinkerd, importLinkerdRoutes } from './importLinkerd.js';
import { hasPollyOptions, importPolly } from './importPolly.js';
import { importResilience4j, looksLikeResilience4j } from './importResilience4j.js';
import { readDocument } from './readDocument.js';
import { apiGroup, readResources, type Resource } from './readResources.js';

/**
 * The configuration formats of meshes, gateways and frameworks a layer can be imported from, as
 * `import.format` names them (beside grpc-service-config, envoy-route and aws-config).
 */
export const MESH_FORMATS = ['istio', 'linkerd', 'gateway-api', 'envoy-gateway', 'ingress-nginx', 'resilience4j', 'polly', 'aws-env'] as const;
/** One of {@link MESH_FORMATS}. */
export type MeshFormat = (typeof MESH_FORMATS)[number];

const file = f.nonEmptyString();
const route = f.nonEmptyString().optional();
const instance = f.nonEmptyString().optional();

/** The `import` entries of a stack file for the mesh formats (one schema per format, told apart by `format`). */
export const MESH_IMPORT_SCHEMAS = [
  f.object({ format: z.literal('istio'), file, route }),
  f.object({ format: z.literal('linkerd'), file, route }),
  f.object({ format: z.literal('gateway-api'), file, route }),
  f.object({ format: z.literal('envoy-gateway'), file, route }),
  f.object({ format: z.literal('ingress-nginx'), file, route }),
  f.object({ format: z.literal('resilience4j'), file, instance }),
  f.object({ format: z.literal('polly'), file, instance }),
  f.object({
    format: z.literal('aws-env'),
    file,
    sdk: f.oneOf(AWS_SDKS as [AwsSdk, ...AwsSdk[]]).optional(),
    config: f.nonEmptyString().optional(),
    profile: f.nonEmptyString().optional(),
  }),
] as const;
/** An `import` entry of a mesh format. */
export type MeshImportSpec = z.output<(typeof MESH_IMPORT_SCHEMAS)[number]>;

/** What a mesh import may be told besides the file: which route, resource or instance to read. */
export interface MeshImportOptions {
  route?: string;
  /** A resilience4j instance or config, or a Polly section. */
  instance?: string;
  /** The SDK that reads AWS environment variables. */
  sdk?: AwsSdk;
}

/** Import a file of a mesh format, with its format's fixes of findings (FORMAT_FIXES). */
export function importMesh(format: MeshFormat, text: string, source: string, options: MeshImportOptions = {}): ImportedLayer {
  return withFormatFixes(format, importMeshLayer(format, text, source, options));
}

function importMeshLayer(format: MeshFormat, text: string, source: string, options: MeshImportOptions): ImportedLayer {
  const o = options.route !== undefined ? { route: options.route } : {};
  switch (format) {
    case 'istio':
      return importIstio(text, source, o);
    case 'linkerd':
      return importLinkerd(text, source, o);
    case 'gateway-api':
      return importGatewayApi(text, source, o);
    case 'envoy-gateway':
      return importEnvoyGateway(text, source, o);
    case 'ingress-nginx':
      return importIngressNginx(text, source, o);
    case 'resilience4j':
      return importResilience4j(text, source, options.instance !== undefined ? { instance: options.instance } : {});
    case 'polly':
      return importPolly(text, source, options.instance !== undefined ? { instance: options.instance } : {});
    case 'aws-env':
      return importAwsEnv(text, source, options.sdk !== undefined ? { sdk: options.sdk } : {});
  }
}

/**
 * Run a stack file's `import` entry of a mesh format on the file's text; `read` reads the other
 * files it names (the AWS config an `aws-env` import overrides).
 */
export function runMeshImport(spec: MeshImportSpec, text: string, source: string, read: (file: string) => { source: string; text: string }): ImportedLayer {
  if (spec.format === 'aws-env') {
    const config = spec.config === undefined ? undefined : read(spec.config);
    return importAwsEnv(text, source, {
      ...(spec.sdk !== undefined ? { sdk: spec.sdk } : {}),
      ...(config !== undefined ? { config: { ...config, ...(spec.profile !== undefined ? { profile: spec.profile } : {}) } } : {}),
    });
  }
  const options: MeshImportOptions = {};
  if ('route' in spec && spec.route !== undefined) options.route = spec.route;
  if ('instance' in spec && spec.instance !== undefined) options.instance = spec.instance;
  return importMesh(spec.format, text, source, options);
}

const has = (resources: Resource[], kind: string, groups: string[]) => resources.some((d) => d.kind === kind && groups.includes(apiGroup(d.apiVersion)));

/**
 * The mesh format of a file of Kubernetes resources, by `apiVersion` and `kind`, in this order:
 * an Istio VirtualService; Linkerd (a ServiceProfile or retry.linkerd.io annotations, which win
 * over the Gateway API fields of the same HTTPRoute, as Linkerd reads them); an Envoy Gateway
 * BackendTrafficPolicy; a Gateway API HTTPRoute. Undefined when none is there.
 */
export function meshFormatOf(resources: Resource[]): MeshFormat | undefined {
  if (has(resources, 'VirtualService', [ISTIO_GROUP])) return 'istio';
  if (hasLinkerdRetries(resources)) return 'linkerd';
  if (has(resources, 'BackendTrafficPolicy', [ENVOY_GATEWAY_GROUP])) return 'envoy-gateway';
  if (has(resources, 'HTTPRoute', [GATEWAY_API_GROUP]) || has(resources, 'XBackendTrafficPolicy', [GATEWAY_API_X_GROUP])) return 'gateway-api';
  if (has(resources, 'Ingress', ['networking.k8s.io', 'extensions'])) return 'ingress-nginx';
  const nginxMap = resources.some((d) => d.kind === 'ConfigMap' && typeof d.value.data === 'object' && d.value.data !== null && NGINX_KEYS.some((k) => k in (d.value.data as object)));
  if (nginxMap) return 'ingress-nginx';
  return undefined;
}

/** Whether a text is environment variables (a `.env` file, or only `KEY=value` lines, one of them `AWS_...`). */
function looksLikeEnv(text: string, source: string): boolean {
  const lines = text.split(/\r?\n/).map((l) => l.trim()).filter((l) => l !== '' && !l.startsWith('#'));
  if (/(^|[\\/])\.env$|\.env$/i.test(source)) return true;
  return lines.length > 0 && lines.every((l) => /^(?:export\s+)?[A-Z_][A-Z0-9_]*=/.test(l)) && lines.some((l) => /^(?:export\s+)?AWS_/.test(l));
}

/** Whether a text looks like Kubernetes resources (an `apiVersion` key at the start of a line). */
function looksLikeResources(text: string): boolean {
  return /^\s*(?:-\s+)?"?apiVersion"?\s*:/m.test(text);
}

/** The mesh format of a file on its own, or undefined when it is in none of them (then the other readers of `check` try it). */
function detectMeshFormat(text: string, source: string): MeshFormat | undefined {
  if (looksLikeEnv(text, source)) return 'aws-env';
  if (!looksLikeResources(text)) {
    if (looksLikeResilience4j(text, source)) return 'resilience4j';
    if (/\.json$/i.test(source) && /"(MaxRetryAttempts|BackoffType|UseJitter|AttemptTimeout|TotalRequestTimeout)"/i.test(text) && hasPollyOptions(readDocument(text, source))) {
      return 'polly';
    }
    return undefined;
  }
  const resources = readResources(text, source);
  const format = meshFormatOf(resources);
  if (format === undefined) {
    const kinds = [...new Set(resources.map((d) => `${d.apiVersion || '?'} ${d.kind || '?'}`))];
    throw new CheckInputError([
      `${source}: holds no resource with retries that check reads (got ${listNames(kinds)}; known: ${RESOURCE_FORMATS.map((f) => CHECK_FORMATS[f]).join(', ')})`,
    ]);
  }
  return format;
}

/**
 * A file on its own in one of the mesh formats, as one imported layer, or undefined when the file
 * is in none of them (then the other readers of `check` try it).
 */
export function detectMeshImport(text: string, source: string, options: MeshImportOptions = {}): ImportedLayer | undefined {
  const format = detectMeshFormat(text, source);
  return format === undefined ? undefined : importMesh(format, text, source, options);
}

/**
 * A file on its own in one of the mesh formats as one imported layer per route, in file order
 * (see importMeshRoutes), or undefined when the file is in none of them.
 */
export function detectMeshImports(text: string, source: string, options: MeshImportOptions = {}): ImportedLayer[] | undefined {
  const format = detectMeshFormat(text, source);
  return format === undefined ? undefined : importMeshRoutes(format, text, source, options);
}

/**
 * A file of a mesh format as one layer per route, in file order, for the formats with several
 * routes (Istio http routes, Gateway API rules, Envoy Gateway policies, Linkerd routes that differ),
 * or the one `options.route` names; the other formats give their one layer.
 */
export function importMeshRoutes(format: MeshFormat, text: string, source: string, options: MeshImportOptions = {}): ImportedLayer[] {
  return meshRoutes(format, text, source, options).map((layer) => withFormatFixes(format, layer));
}

function meshRoutes(format: MeshFormat, text: string, source: string, options: MeshImportOptions): ImportedLayer[] {
  const o = options.route !== undefined ? { route: options.route } : {};
  switch (format) {
    case 'istio':
      return importIstioRoutes(text, source, o);
    case 'linkerd':
      return importLinkerdRoutes(text, source, o);
    case 'gateway-api':
      return importGatewayApiRoutes(text, source, o);
    case 'envoy-gateway':
      return importEnvoyGatewayRoutes(text, source, o);
    default:
      return [importMesh(format, text, source, options)];
  }
}
