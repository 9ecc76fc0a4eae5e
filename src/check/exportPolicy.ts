import { RETRY_ON_CLASS_INFO } from '../policy/classify.js';
import type { PolicySpec, RetryOnClass } from '../policy/types.js';
import { CheckInputError } from './CheckInputError.js';
import { exportAwsConfig } from './exportAwsConfig.js';
import { exportEnvoyRoute } from './exportEnvoyRoute.js';
import { exportGatewayApi } from './exportGatewayApi.js';
import { exportGrpcServiceConfig } from './exportGrpcServiceConfig.js';
import { exportIstio } from './exportIstio.js';
import { exportLinkerd } from './exportLinkerd.js';
import { exportResilience4j } from './exportResilience4j.js';
import { describeBackoff, describeBudget } from './formatReport.js';
import { loadStacks, type LoadStackOptions } from './loadStack.js';

/** The formats `retrystorm export` writes. */
export const EXPORT_FORMATS = ['envoy-route', 'grpc-service-config', 'istio', 'linkerd', 'gateway-api', 'aws-config', 'resilience4j'] as const;
/** One of {@link EXPORT_FORMATS}. */
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/** How to write a policy. */
export interface ExportOptions {
  /** The name of the route, service, profile or instance written (default `retrystorm`). */
  name?: string;
  /** For `aws-config`: the SDK whose modes to choose from (`js`, the default, or `python`). */
  sdk?: 'js' | 'python';
}

/** A policy written in a format, and what the format could not express. */
export interface ExportResult {
  text: string;
  /** The file name suffix the text is usually kept in (`yaml`, `json`, `ini`). */
  extension: string;
  /** One line per field the format cannot express, with what it reads back as. */
  warnings: string[];
}

/** What one exporter returns: the text, and warnings the read-back comparison cannot see (hints). */
export interface ExportedText {
  text: string;
  extension: string;
  hints: string[];
}

/** The name written when none is given. */
export const DEFAULT_EXPORT_NAME = 'retrystorm';

/** The name a layer's configuration is written under: its name in lowercase letters, digits, `-` and `.` (or the default). */
export function exportNameOf(layerName: string): string {
  return layerName.toLowerCase().replace(/[^a-z0-9.-]+/g, '-').replace(/^-+|-+$/g, '') || DEFAULT_EXPORT_NAME;
}

function describe(field: keyof PolicySpec, v: unknown): string {
  if (v === undefined) return 'none';
  if (field === 'backoff') return describeBackoff(v as PolicySpec['backoff']);
  if (field === 'budget') return (v as NonNullable<PolicySpec['budget']>).map(describeBudget).join(' + ') || 'none';
  if (field === 'retryOn') return (v as RetryOnClass[]).join(' ') || 'nothing';
  if (typeof v === 'object') return JSON.stringify(v);
  return String(v);
}

/** Every field of a resolved policy, each compared on the way back (a Record, so a new field cannot be forgotten). */
const FIELD_SET: Record<keyof PolicySpec, true> = {
  maxAttempts: true,
  perAttemptTimeoutMs: true,
  deadlineMode: true,
  backoff: true,
  tickMs: true,
  retryOn: true,
  idempotency: true,
  retryAfter: true,
  totalTimeoutMs: true,
  maxElapsedMs: true,
  seeding: true,
  budget: true,
  admission: true,
  hedging: true,
  retryHostPredicate: true,
  maxRetryAfterMs: true,
};
const FIELDS = Object.keys(FIELD_SET) as Array<keyof PolicySpec>;

function canonicalValue(field: keyof PolicySpec, v: unknown): string {
  if (field === 'retryOn') return JSON.stringify([...((v as string[] | undefined) ?? [])].sort());
  if (field === 'budget' && Array.isArray(v) && v.length === 0) return 'undefined';
  if (field === 'seeding' && (v as { kind?: string } | undefined)?.kind === 'independent') return 'undefined';
  return JSON.stringify(v, (_k, x: unknown) => (x === Infinity ? 'Infinity' : x)) ?? 'undefined';
}

/**
 * The fields where two resolved policies differ, each as one warning: what the policy has, and
 * what the written configuration reads back as. Retry classes compare as sets.
 */
export function policyDifferences(wanted: PolicySpec, back: PolicySpec, format: string): string[] {
  const out: string[] = [];
  for (const field of FIELDS) {
    const a = wanted[field];
    const b = back[field];
    if (canonicalValue(field, a) === canonicalValue(field, b)) continue;
    if (field === 'retryOn') out.push(classDifference(wanted.retryOn, back.retryOn, format));
    else out.push(`${field}: ${describe(field, a)} cannot be expressed in ${format}; it reads back as ${describe(field, b)}`);
  }
  return out;
}

/**
 * The warning of a class set that reads back differently: each class the format cannot say (lost:
 * the written configuration does not retry it) and each it retries besides, by name and meaning.
 */
function classDifference(wanted: readonly RetryOnClass[], back: readonly RetryOnClass[], format: string): string {
  const lost = wanted.filter((c) => !back.includes(c));
  const added = back.filter((c) => !wanted.includes(c));
  const name = (cs: readonly RetryOnClass[]) => cs.map((c) => `${c} (${RETRY_ON_CLASS_INFO[c].label})`).join(', ');
  const parts: string[] = [];
  if (lost.length > 0) parts.push(`${format} cannot say ${lost.join(', ')}: the written configuration does not retry ${name(lost)}`);
  if (added.length > 0) parts.push(`it also retries ${name(added)}`);
  return `retryOn: ${parts.join('; ')}; it reads back as ${describe('retryOn', back)}`;
}

/** The resolved policy `check` reads back from an exported text. */
export function readBack(text: string, format: ExportFormat, extension: string, load: LoadStackOptions = {}): PolicySpec {
  const source = format === 'aws-config' ? 'exported.ini' : `exported.${extension}`;
  const stacks = loadStacks(text, source, load);
  const layer = stacks[0]?.layers[0];
  if (layer === undefined) throw new Error(`an exported ${format} configuration reads back as no layer`);
  return layer.policy;
}

function write(policy: PolicySpec, format: ExportFormat, options: ExportOptions): ExportedText {
  const name = options.name ?? DEFAULT_EXPORT_NAME;
  switch (format) {
    case 'envoy-route':
      return exportEnvoyRoute(policy, name);
    case 'grpc-service-config':
      return exportGrpcServiceConfig(policy, name);
    case 'istio':
      return exportIstio(policy, name);
    case 'linkerd':
      return exportLinkerd(policy, name);
    case 'gateway-api':
      return exportGatewayApi(policy, name);
    case 'aws-config':
      return exportAwsConfig(policy, name, options.sdk ?? 'js');
    case 'resilience4j':
      return exportResilience4j(policy, name);
  }
}

/**
 * A layer's resolved policy written as a configuration of `format`. The text is read back with the
 * format's importer (the same reader `check` uses, so both directions share one mapping), and every
 * field that reads back differently is a warning: what the format cannot express (full jitter in
 * Istio, a deadline mode, a budget kind the format lacks...) is listed, never silently dropped.
 */
export function exportPolicy(policy: PolicySpec, format: ExportFormat, options: ExportOptions = {}): ExportResult {
  const written = write(policy, format, options);
  let back: PolicySpec;
  try {
    const name = options.name ?? DEFAULT_EXPORT_NAME;
    back = readBack(written.text, format, written.extension, format === 'aws-config' ? { sdk: options.sdk ?? 'js', profile: name } : {});
  } catch (e) {
    if (e instanceof CheckInputError) throw new Error(`an exported ${format} configuration does not read back: ${e.problems.join('; ')}`, { cause: e });
    throw e;
  }
  return { text: written.text, extension: written.extension, warnings: [...policyDifferences(policy, back, format), ...written.hints] };
}
