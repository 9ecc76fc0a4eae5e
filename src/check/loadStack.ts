import { describeValue, listNames } from '../policy/schema/describeValue.js';
import { z } from 'zod';
import { parseExperimentText } from '../experiment/parseExperiment.js';
import type { PathSegment } from '../experiment/Problem.js';
import { resolveScenario } from '../experiment/resolveScenario.js';
import { METHODS, stackSchema } from '../experiment/scenarioSchema.js';
import { fields as f } from '../policy/schema/fields.js';
import { endpointNamed, serviceNamed, WORKLOAD_CALLER, type ServiceGraph } from '../model/graph/ServiceGraph.js';
import type { Dist, Layer } from '../model/scenario.js';
import type { Method, PolicySpec } from '../policy/types.js';
import { CheckInputError } from './CheckInputError.js';
import { unrecognisedFileMessage } from './checkFormats.js';
import type { CheckGraph } from './graphWorstCase.js';
import { isObject, type JsonObject } from './FieldReader.js';
import { importAwsConfig, type AwsSdk } from './importAwsConfig.js';
import type { ImportedLayer } from './ImportedLayer.js';
import { importAwsEnv } from './importAwsEnv.js';
import { holdsEnvoyRetryPolicy, importEnvoyRoutes } from './importEnvoyRoute.js';
import { importGrpcServiceConfigRoutes, isGrpcServiceConfig, type GrpcImpl } from './importGrpcServiceConfig.js';
import { hasStackImports, importLayer, importSchema, resolveExperimentImports, zodMessages, type ImportReader } from './layerImport.js';
import { withFormatFixes, type FormatFixes } from './formatFixes.js';
import { detectMeshImports } from './meshImports.js';
import { readDocument } from './readDocument.js';

/** One layer of a checked stack: its resolved policy and where it came from. */
export interface CheckLayer {
  name: string;
  /** Instances of the layer (each holds its own budget state); 1 unless given. */
  instances: number;
  /** Delay of the hop below, when the input gives one (used only by `--simulate`). */
  hopMs?: Dist;
  /** The policy with every default filled in, as the simulator would run it. */
  policy: PolicySpec;
  /** Where the policy comes from: `inline`, `preset p-retry`, or the imported file and section. */
  origin: string;
  /** How an imported configuration maps onto the model, and what it leaves out. */
  notes: string[];
  /** What its file says that its tool reads another way than a reader would expect (a repeated name or section, and which applies). */
  warnings?: string[];
  /** The fixes of findings in its format's own terms (ImportedLayer). */
  fixes?: FormatFixes;
}

/** A stack to check: its layers from the caller down to the leaf, and the operation sent through it. */
export interface CheckStack {
  /** The file it was read from (as named in messages). */
  source: string;
  /** The stack's name (a stack file's `name`, an experiment's name and part, the file's name, or the route of a file with several). */
  name: string;
  /** The route (or method, or policy) of a configuration on its own with several, as `--route` names it. */
  route?: string;
  /** The operation's method (GET unless given): POST is not replayed after a timeout under `idempotency: http`. */
  method: Method;
  /** The operation's deadline, if it has one. */
  deadlineMs?: number;
  layers: CheckLayer[];
  /** For the workload's stack of a service graph: the graph it enters, whose edges `check` walks too. */
  graph?: CheckGraph;
}

/** How to load a stack. */
export interface LoadStackOptions {
  /** Reads the files named by `import` entries of a stack file (given as written, relative to the stack file). */
  readImport?: ImportReader;
  /** Only this part of an experiment file with `parts`. */
  part?: string;
  /** Overrides the operation's method. */
  method?: Method;
  /** Overrides the operation's deadline. */
  deadlineMs?: number;
  /** When the file itself is a real configuration: which profile, route (a gRPC service config's `pkg.Service/Method` too), or gRPC method to read; without a route, every route. */
  profile?: string;
  sdk?: AwsSdk;
  route?: string;
  /** `pkg.Service` or `pkg.Service/Method`. */
  service?: string;
  /** A resilience4j instance or a Polly section, when the file is one of those on its own. */
  instance?: string;
  /** `KEY=value` environment variables (AWS_RETRY_MODE, AWS_MAX_ATTEMPTS) over an AWS config on its own. */
  env?: string[];
  /** The gRPC implementation whose delay formula a gRPC service config on its own gets (default: the 2024 formula). */
  grpcImpl?: GrpcImpl;
}

// The stack file -----------------------------------------------------------------------------

const stackLayerSchema = f.object({
  name: f.nonEmptyString().optional(),
  description: f.string().optional(),
  instances: f.positiveInt().optional(),
  hopMs: z.unknown().optional(),
  preset: f.string().optional(),
  import: importSchema.optional(),
  policy: f.record(z.unknown(), 'an object (a policy as in experiment files)').optional(),
});

const stackFileSchema = f.object({
  $schema: f.string().optional(),
  name: f.nonEmptyString().optional(),
  description: f.string().optional(),
  method: f.oneOf(METHODS).default('GET'),
  deadlineMs: f.number('>= 0').optional(),
  layers: f.array(stackLayerSchema, 'layers', 1, 16),
});

/** A raw layer (experiment-file form) and what `check` says about its origin. */
interface RawLayer {
  raw: JsonObject;
  origin: string;
  notes: string[];
  warnings?: string[];
  fixes?: FormatFixes;
}

/** The optional parts of an imported layer a raw layer carries (warnings, fixes), when present. */
function extras(imported: { warnings?: string[]; fixes?: FormatFixes }): Pick<RawLayer, 'warnings' | 'fixes'> {
  return { ...(imported.warnings !== undefined ? { warnings: imported.warnings } : {}), ...(imported.fixes !== undefined ? { fixes: imported.fixes } : {}) };
}

/** Resolve raw layers with the experiment's stack schema; messages name `prefix` paths in `source`. */
function resolveLayers(raws: RawLayer[], source: string, prefix: PathSegment[]): CheckLayer[] {
  const parsed = stackSchema.safeParse(raws.map((l) => l.raw), { reportInput: true });
  if (!parsed.success) throw new CheckInputError(zodMessages(parsed.error.issues, source, prefix));
  return parsed.data.map((layer: Layer, i) => toCheckLayer(layer, raws[i]?.origin ?? 'inline', raws[i]?.notes ?? [], raws[i]?.warnings, raws[i]?.fixes));
}

function toCheckLayer(layer: Layer, origin: string, notes: string[], warnings?: string[], fixes?: FormatFixes): CheckLayer {
  return {
    name: layer.name,
    instances: layer.instances,
    ...(layer.hopMs !== undefined ? { hopMs: layer.hopMs } : {}),
    policy: layer.policy,
    origin,
    notes,
    ...(warnings !== undefined && warnings.length > 0 ? { warnings } : {}),
    ...(fixes !== undefined ? { fixes } : {}),
  };
}

function inlineOrigin(policy: unknown): string {
  if (!isObject(policy)) return 'inline';
  const { preset, ...rest } = policy;
  if (typeof preset !== 'string') return 'inline';
  return Object.keys(rest).length > 0 ? `preset ${preset} with overrides` : `preset ${preset}`;
}

function loadStackFile(root: JsonObject, source: string, options: LoadStackOptions): CheckStack {
  const parsed = stackFileSchema.safeParse(root, { reportInput: true });
  if (!parsed.success) throw new CheckInputError(zodMessages(parsed.error.issues, source));
  const file = parsed.data;
  const problems: string[] = [];
  const raws: RawLayer[] = file.layers.map((layer, i): RawLayer => {
    const raw: JsonObject = {};
    if (layer.name !== undefined) raw.name = layer.name;
    if (layer.instances !== undefined) raw.instances = layer.instances;
    if (layer.hopMs !== undefined) raw.hopMs = layer.hopMs;
    const overrides = layer.policy ?? {};
    if (layer.import !== undefined) {
      if (layer.preset !== undefined) problems.push(`${source}: layers.${i}.preset cannot be combined with import (a layer is imported or starts from a preset)`);
      try {
        const imported = importLayer(layer.import, { name: layer.name, overrides }, options.readImport, source, `layers.${i}`);
        raw.name = imported.name;
        raw.policy = imported.policy;
        return { raw, origin: imported.origin, notes: imported.notes, ...extras(imported) };
      } catch (e) {
        if (!(e instanceof CheckInputError)) throw e;
        problems.push(...e.problems);
        return { raw, origin: 'import', notes: [] };
      }
    }
    if (layer.preset !== undefined && overrides.preset !== undefined) {
      problems.push(`${source}: layers.${i}.policy.preset cannot be combined with layers.${i}.preset (give the preset once)`);
    }
    raw.policy = layer.preset !== undefined ? { preset: layer.preset, ...overrides } : overrides;
    return { raw, origin: inlineOrigin(raw.policy), notes: [] };
  });
  let layers: CheckLayer[] = [];
  try {
    layers = resolveLayers(raws, source, ['layers']);
  } catch (e) {
    if (!(e instanceof CheckInputError)) throw e;
    // A preset given beside the policy is reported where it is written.
    problems.push(
      ...e.problems.map((p) => p.replace(/^(.*: layers\.(\d+)\.)policy\.preset /, (m, head: string, i: string) => (file.layers[Number(i)]?.preset !== undefined ? `${head}preset ` : m))),
    );
  }
  if (problems.length > 0) throw new CheckInputError(problems);
  const deadlineMs = options.deadlineMs ?? file.deadlineMs;
  return {
    source,
    name: file.name ?? baseName(source),
    method: options.method ?? file.method,
    ...(deadlineMs !== undefined ? { deadlineMs } : {}),
    layers,
  };
}

// Experiment files ------------------------------------------------------------------------------

function loadExperimentStacks(text: string, file: JsonObject, source: string, options: LoadStackOptions): CheckStack[] {
  // Imported layers are resolved first (experiment files name them in scenario.stack), then the file is parsed as `run` parses it.
  const imports = hasStackImports(file) ? resolveExperimentImports(file, source, options.readImport) : undefined;
  const root = imports?.root ?? file;
  const parsed = parseExperimentText(imports === undefined ? text : JSON.stringify(root), source);
  if (!parsed.ok) throw new CheckInputError(parsed.errors);
  const experiment = parsed.experiment;
  const parts: Array<{ name: string; scenario: unknown; location: PathSegment[] }> = Array.isArray(root.parts)
    ? root.parts.map((p: unknown, i) => ({
        name: isObject(p) && typeof p.name === 'string' ? p.name : `part${i}`,
        scenario: isObject(p) ? p.scenario : undefined,
        location: ['parts', i, 'scenario'],
      }))
    : [{ name: '', scenario: root.scenario, location: ['scenario'] }];
  let chosen = parts;
  if (options.part !== undefined) {
    chosen = parts.filter((p) => p.name === options.part);
    if (chosen.length === 0) {
      const names = parts.map((p) => p.name).filter((n) => n !== '');
      throw new CheckInputError([
        `${source}: has no part ${JSON.stringify(options.part)} (${names.length > 0 ? `parts: ${listNames(names)}` : 'it has no parts'})`,
      ]);
    }
  }
  return chosen.map((part): CheckStack[] => {
    const resolved = resolveScenario(part.scenario, part.location);
    if (!resolved.ok) throw new CheckInputError(resolved.errors.map((e) => `${source}: ${e}`));
    const sc = resolved.scenario;
    const rawStack = isObject(part.scenario) && Array.isArray(part.scenario.stack) ? part.scenario.stack : [];
    const layers = sc.stack.map((layer, i) => {
      const imported = imports?.layers.get([...part.location, 'stack', i].join('.'));
      if (imported !== undefined) return toCheckLayer(layer, imported.origin, imported.notes, imported.warnings, imported.fixes);
      const raw: unknown = rawStack[i];
      return toCheckLayer(layer, inlineOrigin(isObject(raw) ? raw.policy : undefined), []);
    });
    const deadlineMs = options.deadlineMs ?? sc.workload.deadlineMs;
    const name = part.name === '' ? experiment.name : `${experiment.name}/${part.name}`;
    const method = options.method ?? sc.workload.method;
    const workloadStack: CheckStack = { source, name, method, ...(deadlineMs !== undefined ? { deadlineMs } : {}), layers };
    const graph = sc.graph;
    if (graph === undefined) return [workloadStack];
    if (graph.workloads === undefined) {
      workloadStack.graph = { graph, caller: WORKLOAD_CALLER, entries: graph.entries, entryPolicies: layers.map((l) => l.policy), method, ...(deadlineMs !== undefined ? { deadlineMs } : {}) };
      return [workloadStack, ...callStacks(graph, part.scenario, name, source, method)];
    }
    // Several workloads: each one's own stack, with the edges its operations reach.
    const workloads = graph.workloads.map((w): CheckStack => {
      const wMethod = options.method ?? w.workload.method;
      const wDeadline = options.deadlineMs ?? w.workload.deadlineMs;
      const wLayers = w.stack.map((layer, i) => {
        const raw = rawAt(part.scenario, ['workloads', w.name, 'stack', i, 'policy']);
        return toCheckLayer(layer, inlineOrigin(raw), []);
      });
      return {
        source,
        name: `${name} (workload ${w.name})`,
        method: wMethod,
        ...(wDeadline !== undefined ? { deadlineMs: wDeadline } : {}),
        layers: wLayers,
        graph: { graph, caller: w.name, entries: w.entries, entryPolicies: wLayers.map((l) => l.policy), method: wMethod, ...(wDeadline !== undefined ? { deadlineMs: wDeadline } : {}) },
      };
    });
    return [...workloads, ...callStacks(graph, part.scenario, name, source, method)];
  }).flat();
}

/**
 * One stack per call of a graph's handlers written with a stack, named `<name> (<service>.<endpoint> ->
 * <callee>.<endpoint>)`, checked as any stack is: the calling service's layers, the callee endpoint's
 * method (default the operation's), and no deadline of its own (it works to the one propagated from
 * its handler's caller).
 */
function callStacks(graph: ServiceGraph, rawScenario: unknown, name: string, source: string, method: Method): CheckStack[] {
  const out: CheckStack[] = [];
  for (const service of graph.services) {
    for (const endpoint of service.endpoints) {
      (endpoint.steps ?? []).forEach((step, i) => {
        if (step.kind !== 'call') return;
        step.calls.forEach((call, j) => {
          // A call written without a stack makes one attempt: nothing of its own to check.
          const raw = rawAt(rawScenario, ['services', service.name, 'endpoints', endpoint.name, 'steps', i, 'calls', j, 'stack']);
          if (!Array.isArray(raw) || call.stack.length === 0) return;
          const callee = endpointNamed(serviceNamed(graph, call.service), call.endpoint);
          out.push({
            source,
            name: `${name} (${service.name}.${endpoint.name} -> ${call.service}.${call.endpoint})`,
            method: callee.method ?? method,
            layers: call.stack.map((layer, k) => {
              const rawLayer: unknown = raw[k];
              return toCheckLayer(layer, inlineOrigin(isObject(rawLayer) ? rawLayer.policy : undefined), []);
            }),
          });
        });
      });
    }
  }
  return out;
}

/** The raw value at a path of a parsed document (undefined where the path leaves it). */
function rawAt(root: unknown, path: ReadonlyArray<string | number>): unknown {
  let at = root;
  for (const key of path) {
    if (Array.isArray(at) && typeof key === 'number') at = at[key] as unknown;
    else if (isObject(at) && typeof key === 'string' && Object.hasOwn(at, key)) at = at[key];
    else return undefined;
  }
  return at;
}

// Bare configuration files -----------------------------------------------------------------------

/** Whether the text is an INI file (AWS shared config) rather than JSON or YAML. */
function looksLikeIni(text: string, source: string): boolean {
  if (/\.(ini|cfg|conf)$/i.test(source) || /(^|[\\/])(config|credentials)$/.test(source)) return true;
  if (/\.(json|ya?ml)$/i.test(source)) return false;
  const first = text.split(/\r?\n/).map((l) => l.trim()).find((l) => l !== '' && !l.startsWith('#') && !l.startsWith(';'));
  return first !== undefined && /^\[[^\]]+\]$/.test(first) && !/^\[\s*[\d"{[\]-]/.test(first);
}

function bareStack(imported: ImportedLayer, source: string, options: LoadStackOptions): CheckStack {
  const raw: RawLayer = { raw: { name: imported.defaultName, policy: imported.policy }, origin: imported.origin, notes: imported.notes, ...extras(imported) };
  const layers = resolveLayers([raw], source, []);
  return {
    source,
    name: imported.route ?? baseName(source),
    ...(imported.route !== undefined ? { route: imported.route } : {}),
    method: options.method ?? 'GET',
    ...(options.deadlineMs !== undefined ? { deadlineMs: options.deadlineMs } : {}),
    layers,
  };
}

function baseName(source: string): string {
  const name = source.split(/[\\/]/).pop() ?? source;
  return name.replace(/\.(json|ya?ml|ini|cfg|conf)$/i, '') || name;
}

/**
 * The stacks of a file `retrystorm check` is given (no I/O: the text is passed in, and the files
 * a stack file imports are read through `options.readImport`):
 * - a stack file (JSON or YAML, with `layers`): see docs/check.md;
 * - an experiment file (with `scenario`, or `parts`: one stack per part, or `options.part`);
 * - a real configuration on its own, as a one-layer stack: an AWS shared config (INI), a gRPC
 *   service config (`methodConfig`), or an Envoy route, list of routes, virtual host, route
 *   configuration, bootstrap or config_dump (anything holding a `retry_policy` or `retryPolicy`),
 *   or a mesh, gateway or framework format (detectMeshImports); a file of several routes (retry
 *   policies, http routes, rules, BackendTrafficPolicies, methodConfigs with a retry) gives one stack
 *   per route, in file order, each named by its route, unless `options.route` (or `options.service`)
 *   names one.
 * A file in none of them is refused with a message listing every format (CHECK_FORMATS). Every
 * problem throws a CheckInputError naming the file and the field.
 */
export function loadStacks(text: string, source: string, options: LoadStackOptions = {}): CheckStack[] {
  const mesh = detectMeshImports(text, source, {
    ...(options.route !== undefined ? { route: options.route } : {}),
    ...(options.instance !== undefined ? { instance: options.instance } : {}),
    ...(options.sdk !== undefined ? { sdk: options.sdk } : {}),
  });
  if (mesh !== undefined) return mesh.map((layer) => bareStack(layer, source, options));
  if (looksLikeIni(text, source) && options.env !== undefined && options.env.length > 0) {
    const config = { text, source, ...(options.profile !== undefined ? { profile: options.profile } : {}) };
    return [bareStack(withFormatFixes('aws-env', importAwsEnv(options.env.join('\n'), '--env', { config, ...(options.sdk !== undefined ? { sdk: options.sdk } : {}) })), source, options)];
  }
  if (looksLikeIni(text, source)) {
    return [bareStack(withFormatFixes('aws-config', importAwsConfig(text, source, { ...(options.profile !== undefined ? { profile: options.profile } : {}), ...(options.sdk !== undefined ? { sdk: options.sdk } : {}) })), source, options)];
  }
  const root = readDocument(text, source);
  const envoy = () => importEnvoyRoutes(text, source, options.route !== undefined ? { route: options.route } : {}).map((layer) => bareStack(withFormatFixes('envoy-route', layer), source, options));
  if (Array.isArray(root) && holdsEnvoyRetryPolicy(root)) return envoy();
  if (!isObject(root)) {
    throw new CheckInputError([unrecognisedFileMessage(source, `got ${Array.isArray(root) ? 'a list' : describeValue(root)}`)]);
  }
  if (root.layers !== undefined) return [loadStackFile(root, source, options)];
  if (root.scenario !== undefined || root.parts !== undefined) return loadExperimentStacks(text, root, source, options);
  if (isGrpcServiceConfig(root)) {
    // --route names a method as --service does (pkg.Service/Method).
    if (options.service !== undefined && options.route !== undefined && options.service !== options.route) {
      throw new CheckInputError([`${source}: --route ${JSON.stringify(options.route)} and --service ${JSON.stringify(options.service)} name different methods of the service config; give one`]);
    }
    const [service, method] = (options.service ?? options.route ?? '').split('/');
    return importGrpcServiceConfigRoutes(text, source, {
      ...(service !== undefined && service !== '' ? { service } : {}),
      ...(method !== undefined && method !== '' ? { method } : {}),
      ...(options.grpcImpl !== undefined ? { impl: options.grpcImpl } : {}),
    }).map((layer) => bareStack(withFormatFixes('grpc-service-config', layer), source, options));
  }
  if (holdsEnvoyRetryPolicy(root)) return envoy();
  throw new CheckInputError([unrecognisedFileMessage(source, 'an object without "layers", "scenario", "parts", "methodConfig", "retry_policy", "apiVersion" or resilience4j keys')]);
}
