import { z } from 'zod';
import { fields as f } from '../experiment/fields.js';
import { CheckInputError } from './CheckInputError.js';
import type { ImportedLayer } from './ImportedLayer.js';
import { ENVOY_GATEWAY_GROUP, importEnvoyGateway } from './importEnvoyGateway.js';
import { GATEWAY_API_GROUP, GATEWAY_API_X_GROUP, importGatewayApi } from './importGatewayApi.js';
import { importIstio, ISTIO_GROUP } from './importIstio.js';
import { hasLinkerdRetries, importLinkerd } from './importLinkerd.js';
import { apiGroup, readResources, type Resource } from './readResources.js';

/**
 * The configuration formats of meshes, gateways and frameworks a layer can be imported from, as
 * `import.format` names them (beside grpc-service-config, envoy-route and aws-config).
 */
export const MESH_FORMATS = ['istio', 'linkerd', 'gateway-api', 'envoy-gateway'] as const;
/** One of {@link MESH_FORMATS}. */
export type MeshFormat = (typeof MESH_FORMATS)[number];

const file = f.nonEmptyString();
const route = f.nonEmptyString().optional();

/** The `import` entries of a stack file for the mesh formats (one schema per format, told apart by `format`). */
export const MESH_IMPORT_SCHEMAS = [
  f.object({ format: z.literal('istio'), file, route }),
  f.object({ format: z.literal('linkerd'), file, route }),
  f.object({ format: z.literal('gateway-api'), file, route }),
  f.object({ format: z.literal('envoy-gateway'), file, route }),
] as const;
/** An `import` entry of a mesh format. */
export type MeshImportSpec = z.output<(typeof MESH_IMPORT_SCHEMAS)[number]>;

/** What a mesh import may be told besides the file: which route, resource or instance to read. */
export interface MeshImportOptions {
  route?: string;
}

/** Import a file of a mesh format. */
export function importMesh(format: MeshFormat, text: string, source: string, options: MeshImportOptions = {}): ImportedLayer {
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
  }
}

/** Run a stack file's `import` entry of a mesh format on the file's text. */
export function runMeshImport(spec: MeshImportSpec, text: string, source: string): ImportedLayer {
  return importMesh(spec.format, text, source, spec.route !== undefined ? { route: spec.route } : {});
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
  return undefined;
}

/** Whether a text looks like Kubernetes resources (an `apiVersion` key at the start of a line). */
function looksLikeResources(text: string): boolean {
  return /^\s*(?:-\s+)?"?apiVersion"?\s*:/m.test(text);
}

/**
 * A file on its own in one of the mesh formats, as one imported layer, or undefined when the file
 * is in none of them (then the other readers of `check` try it).
 */
export function detectMeshImport(text: string, source: string, options: MeshImportOptions = {}): ImportedLayer | undefined {
  if (!looksLikeResources(text)) return undefined;
  const resources = readResources(text, source);
  const format = meshFormatOf(resources);
  if (format === undefined) {
    const kinds = [...new Set(resources.map((d) => `${d.apiVersion || '?'} ${d.kind || '?'}`))];
    throw new CheckInputError([
      `${source}: holds no resource with retries that check reads (got ${kinds.join(', ')}; known: networking.istio.io VirtualService, linkerd.io ServiceProfile or retry.linkerd.io annotations, gateway.envoyproxy.io BackendTrafficPolicy, gateway.networking.k8s.io HTTPRoute)`,
    ]);
  }
  return importMesh(format, text, source, options);
}
