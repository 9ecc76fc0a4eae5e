import { z } from 'zod';
import { experimentJsonSchema } from '../experiment/experimentJsonSchema.js';
import { fields as f } from '../policy/schema/fields.js';
import { problemMessage, type PathSegment } from '../experiment/Problem.js';
import { mergeValue } from '../experiment/setPath.js';
import { zodProblems } from '../policy/schema/zodProblems.js';
import type { PolicyInput } from '../policy/presets.js';
import { CheckInputError } from './CheckInputError.js';
import { isObject, type JsonObject } from './FieldReader.js';
import { AWS_SDKS, importAwsConfig, type AwsSdk } from './importAwsConfig.js';
import type { ImportedLayer } from './ImportedLayer.js';
import { importEnvoyRoute } from './importEnvoyRoute.js';
import { GRPC_IMPLS, importGrpcServiceConfig } from './importGrpcServiceConfig.js';
import { MESH_FORMATS, MESH_IMPORT_SCHEMAS, runMeshImport } from './meshImports.js';
import { withFormatFixes, type FormatFixes } from './formatFixes.js';

/** The real configuration formats a layer can be imported from. */
export const IMPORT_FORMATS = ['grpc-service-config', 'envoy-route', 'aws-config', ...MESH_FORMATS] as const;
/** A real configuration format a layer's `import` names. */
export type ImportFormat = (typeof IMPORT_FORMATS)[number];

/** Reads a file an import names; returns its text and the name messages should use. Throws a CheckInputError when it cannot. */
export type ImportReader = (file: string) => { source: string; text: string };

const fileField = f.nonEmptyString();

/**
 * A layer's `import` entry (in a stack file's `layers` and an experiment file's `scenario.stack`):
 * the format, the file (relative to the file that names it) and what to read in it.
 */
export const importSchema = f.choice('format', IMPORT_FORMATS, [
  f.object({
    format: z.literal('grpc-service-config'),
    file: fileField,
    service: f.nonEmptyString().optional(),
    method: f.nonEmptyString().optional(),
    impl: f.oneOf(GRPC_IMPLS).optional(),
  }),
  f.object({ format: z.literal('envoy-route'), file: fileField, route: f.nonEmptyString().optional() }),
  f.object({
    format: z.literal('aws-config'),
    file: fileField,
    profile: f.nonEmptyString().optional(),
    sdk: f.oneOf(AWS_SDKS as [AwsSdk, ...AwsSdk[]]).optional(),
  }),
  ...MESH_IMPORT_SCHEMAS,
]);
/** A validated `import` entry. */
export type ImportSpec = z.output<typeof importSchema>;

/** Zod issues as `<source>: <dotted path> <rule>` messages, each once; paths start at `prefix`. */
export function zodMessages(issues: z.core.$ZodIssue[], source: string, prefix: PathSegment[] = []): string[] {
  return [...new Set(zodProblems(issues, prefix).map((p) => `${source}: ${problemMessage(p)}`))];
}

/** Run an import entry: read its file through `read` (a read problem is prefixed with `where`) and map it onto a layer. */
export function runImport(spec: ImportSpec, read: ImportReader, where: string): ImportedLayer {
  let file: { source: string; text: string };
  try {
    file = read(spec.file);
  } catch (e) {
    if (e instanceof CheckInputError) throw new CheckInputError(e.problems.map((p) => `${where}: ${p}`));
    throw e;
  }
  return withFormatFixes(spec.format, importFile(spec, read, file.source, file.text));
}

function importFile(spec: ImportSpec, read: ImportReader, source: string, text: string): ImportedLayer {
  switch (spec.format) {
    case 'grpc-service-config':
      return importGrpcServiceConfig(text, source, {
        ...(spec.service !== undefined ? { service: spec.service } : {}),
        ...(spec.method !== undefined ? { method: spec.method } : {}),
        ...(spec.impl !== undefined ? { impl: spec.impl } : {}),
      });
    case 'envoy-route':
      return importEnvoyRoute(text, source, spec.route !== undefined ? { route: spec.route } : {});
    case 'aws-config':
      return importAwsConfig(text, source, {
        ...(spec.profile !== undefined ? { profile: spec.profile } : {}),
        ...(spec.sdk !== undefined ? { sdk: spec.sdk } : {}),
      });
    default:
      return runMeshImport(spec, text, source, read);
  }
}

/** An imported layer in experiment-file form: the imported policy with the layer's overrides merged over it. */
export interface LayerFromImport {
  /** The layer's name: its own, or the import's default (`grpc`, `envoy`, `istio`...). */
  name: string;
  /** The policy in experiment-file form. */
  policy: PolicyInput;
  /** Where it comes from (`with overrides` when the layer gives any). */
  origin: string;
  notes: string[];
  /** The imported file's warnings (ImportedLayer). */
  warnings?: string[];
  /** The fixes in the imported format's own terms (ImportedLayer). */
  fixes?: FormatFixes;
}

/**
 * One layer's import, as stack files and experiment files have it: `at` is the layer's dotted
 * path in `source` (`layers.1`, `scenario.stack.1`). `overrides` (the layer's `policy`) merge over
 * the imported policy; a `preset` among them is a problem (a layer is imported or starts from a
 * preset). Every problem throws a CheckInputError naming the file and the field.
 */
export function importLayer(
  spec: ImportSpec,
  layer: { name?: string | undefined; overrides: JsonObject },
  read: ImportReader | undefined,
  source: string,
  at: string,
): LayerFromImport {
  const problems: string[] = [];
  if (layer.overrides.preset !== undefined) problems.push(`${source}: ${at}.policy.preset cannot be combined with import`);
  if (read === undefined) problems.push(`${source}: ${at}.import cannot be read here (no file access)`);
  if (problems.length > 0 || read === undefined) throw new CheckInputError(problems);
  const imported = runImport(spec, read, `${source}: ${at}.import.file`);
  const policy = mergeValue(JSON.parse(JSON.stringify(imported.policy)) as PolicyInput, layer.overrides) as PolicyInput;
  const origin = Object.keys(layer.overrides).length > 0 ? `${imported.origin}, with overrides` : imported.origin;
  return { name: layer.name ?? imported.defaultName, policy, origin, notes: imported.notes, ...(imported.warnings !== undefined ? { warnings: imported.warnings } : {}), ...(imported.fixes !== undefined ? { fixes: imported.fixes } : {}) };
}

/** Where the stacks of an experiment file are: `scenario`, or each part's `scenario`. */
function stackLocations(root: JsonObject): PathSegment[][] {
  if (Array.isArray(root.parts)) return root.parts.map((_, i): PathSegment[] => ['parts', i, 'scenario']);
  return root.scenario !== undefined ? [['scenario']] : [];
}

function scenarioAt(root: JsonObject, location: PathSegment[]): JsonObject | undefined {
  let v: unknown = root;
  for (const seg of location) v = isObject(v) || Array.isArray(v) ? (v as Record<string | number, unknown>)[seg] : undefined;
  return isObject(v) ? v : undefined;
}

/** Whether any layer of an experiment file's `scenario.stack` (or a part's) has an `import`. */
export function hasStackImports(root: unknown): boolean {
  if (!isObject(root)) return false;
  return stackLocations(root).some((loc) => {
    const stack = scenarioAt(root, loc)?.stack;
    return Array.isArray(stack) && stack.some((l) => isObject(l) && l.import !== undefined);
  });
}

/** What an experiment file's imports resolved to: the root without imports, and where each imported layer came from. */
export interface ResolvedExperimentImports {
  /** A copy of the root in which every imported layer holds its resolved `policy` and `name`, and no `import`. */
  root: JsonObject;
  /** Origin and notes of each imported layer, by its dotted path (`scenario.stack.1`, `parts.0.scenario.stack.1`). */
  layers: Map<string, { origin: string; notes: string[]; warnings?: string[]; fixes?: FormatFixes }>;
}

/**
 * Resolve the `import` entries of an experiment file's layers (`scenario.stack[i].import`, or each
 * part's): each becomes the layer's `policy` (the layer's own `policy` merged over it) and, when
 * the layer has no name, the import's default name. Files are read through `read`, named as
 * written (relative to the experiment file). No I/O of its own. Every problem throws a
 * CheckInputError, each message naming the file and the dotted path from its root.
 */
export function resolveExperimentImports(root: unknown, source: string, read: ImportReader | undefined): ResolvedExperimentImports {
  const out: JsonObject = isObject(root) ? (JSON.parse(JSON.stringify(root)) as JsonObject) : {};
  const layers = new Map<string, { origin: string; notes: string[]; warnings?: string[]; fixes?: FormatFixes }>();
  const problems: string[] = [];
  for (const location of stackLocations(out)) {
    const stack = scenarioAt(out, location)?.stack;
    if (!Array.isArray(stack)) continue;
    stack.forEach((layer: unknown, i) => {
      if (!isObject(layer) || layer.import === undefined) return;
      const path: PathSegment[] = [...location, 'stack', i];
      const at = path.join('.');
      const spec = importSchema.safeParse(layer.import, { reportInput: true });
      if (!spec.success) {
        problems.push(...zodMessages(spec.error.issues, source, [...path, 'import']));
        return;
      }
      if (layer.policy !== undefined && !isObject(layer.policy)) {
        problems.push(`${source}: ${at}.policy must be an object (a policy as in experiment files)`);
        return;
      }
      try {
        const name = typeof layer.name === 'string' ? layer.name : undefined;
        const imported = importLayer(spec.data, { name, overrides: layer.policy ?? {} }, read, source, at);
        delete layer.import;
        if (layer.name === undefined) layer.name = imported.name;
        layer.policy = imported.policy;
        layers.set(at, { origin: imported.origin, notes: imported.notes, ...(imported.warnings !== undefined ? { warnings: imported.warnings } : {}), ...(imported.fixes !== undefined ? { fixes: imported.fixes } : {}) });
      } catch (e) {
        if (!(e instanceof CheckInputError)) throw e;
        problems.push(...e.problems);
      }
    });
  }
  if (problems.length > 0) throw new CheckInputError(problems);
  return { root: out, layers };
}

/**
 * The JSON Schema of experiment files (`retrystorm schema`) with the `import` entry of a layer:
 * the experiment schema does not know the importers (they live here), and the CLI resolves a
 * layer's import before the file is parsed (docs/check.md, "Imports in experiment files").
 */
export function experimentFileJsonSchema(): Record<string, unknown> {
  const schema = experimentJsonSchema();
  const layer = (schema.$defs as Record<string, { properties?: Record<string, unknown> }> | undefined)?.Layer;
  if (layer?.properties === undefined) throw new Error('the experiment schema has no Layer definition');
  const { $schema: _, ...generated } = z.toJSONSchema(importSchema, { target: 'draft-2020-12', io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  layer.properties.import = {
    description: `The layer's policy from a real configuration file (path relative to the experiment file; format one of ${IMPORT_FORMATS.join(', ')}); the layer's policy merges over it. Resolved when the file is read.`,
    ...generated,
  };
  return JSON.parse(JSON.stringify(schema)) as Record<string, unknown>;
}
