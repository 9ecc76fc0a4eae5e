// The import-telemetry command: metric dumps and span files read, a graph experiment written
// (src/telemetry does the reading and the inference; this module the files and the console).
import { basename, extname, relative, resolve } from 'node:path';
import { Option, type Command } from 'commander';
import { CheckInputError } from '../check/index.js';
import { SLUG } from '../experiment/index.js';
import { DEFAULT_IMPORTED_DURATION_MS, importTelemetry, SPAN_FORMATS, TelemetryInputError, type SpanFormat } from '../telemetry/index.js';
import { UsageError, type CliIO } from './io.js';
import { readInputText } from './readInput.js';
import { writeFileAtomic } from './writeFileAtomic.js';

/** The units of `--window`, as Prometheus writes durations (`30s`, `5m`, `1h`, `1d`), in seconds. */
export const WINDOW_UNITS_SEC: Record<string, number> = { ms: 0.001, s: 1, m: 60, h: 3600, d: 86_400, w: 604_800 };

/** The experiment name when neither --name nor --out gives one. */
export const DEFAULT_IMPORT_NAME = 'imported-telemetry';

/** `--window`: a Prometheus duration (`5m`, `90s`, `1h30m`) or a number of seconds, as seconds. */
export function parseWindow(v: string): number {
  const plain = Number(v);
  if (v.trim() !== '' && Number.isFinite(plain) && plain > 0) return plain;
  const parts = [...v.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h|d|w)/g)];
  const total = parts.reduce((a, m) => a + Number(m[1]) * (WINDOW_UNITS_SEC[m[2] as string] as number), 0);
  if (parts.length === 0 || parts.map((m) => m[0]).join('') !== v || !(total > 0)) {
    throw new UsageError([`--window must be a duration such as 5m, 90s or 1h30m, or a number of seconds > 0 (got "${v}")`]);
  }
  return total;
}

/** `--utilization <service=fraction>`, repeatable: a service's utilisation, a number in (0, 1]. */
function collectUtilization(v: string, prev: Record<string, number>): Record<string, number> {
  const at = v.lastIndexOf('=');
  const fraction = Number(v.slice(at + 1));
  if (at <= 0 || !(fraction > 0 && fraction <= 1)) throw new UsageError([`--utilization must be <service>=<fraction>, a fraction in (0, 1] (got "${v}")`]);
  return { ...prev, [v.slice(0, at)]: fraction };
}

/** The options of import-telemetry. */
export interface ImportFlags {
  metrics: string[];
  spans: string[];
  spansFormat?: SpanFormat;
  window?: number;
  name?: string;
  durationMs?: string;
  utilization: Record<string, number>;
  out?: string;
}

function nameFor(flags: ImportFlags): string {
  if (flags.name !== undefined) {
    if (!SLUG.test(flags.name)) throw new UsageError([`--name must be a lowercase slug like "checkout-2026" (got "${flags.name}")`]);
    return flags.name;
  }
  const fromOut = flags.out === undefined ? '' : basename(flags.out, extname(flags.out)).toLowerCase().replace(/[^a-z0-9._-]+/g, '-').replace(/^[^a-z0-9]+/, '');
  return SLUG.test(fromOut) ? fromOut : DEFAULT_IMPORT_NAME;
}

/** Read the files, infer the experiment, write it (to --out or stdout) and say what is left to fill in. */
export function importTelemetryCommand(io: CliIO, flags: ImportFlags): void {
  if (flags.metrics.length === 0 && flags.spans.length === 0) throw new UsageError(['give at least one --metrics or --spans file']);
  let durationMs: number | undefined;
  if (flags.durationMs !== undefined) {
    durationMs = Number(flags.durationMs);
    if (!(Number.isFinite(durationMs) && durationMs > 0)) throw new UsageError([`--duration-ms must be a number > 0 (got "${flags.durationMs}")`]);
  }
  const name = nameFor(flags);
  const read = (file: string) => ({ file, text: readInputText(resolve(io.cwd, file), file) });
  let imported;
  try {
    imported = importTelemetry({
      metrics: flags.metrics.map(read),
      spans: flags.spans.map(read),
      ...(flags.spansFormat !== undefined ? { spanFormat: flags.spansFormat } : {}),
      ...(flags.window !== undefined ? { windowSec: flags.window } : {}),
      ...(durationMs !== undefined ? { durationMs } : {}),
      ...(Object.keys(flags.utilization).length > 0 ? { utilization: flags.utilization } : {}),
      name,
    });
  } catch (e) {
    if (e instanceof TelemetryInputError || e instanceof CheckInputError) throw new UsageError(e.problems);
    throw e;
  }
  const text = JSON.stringify(imported.experiment, null, 2) + '\n';
  const summary = [
    ...imported.notes.map((n) => `note: ${n}`),
    `${imported.placeholders.length} placeholders to fill in (validate names each until it is replaced):`,
    ...imported.placeholders.map((p) => `  ${p.path}: ${p.text}`),
  ];
  if (flags.out === undefined) {
    io.stdout(text);
    io.stderr(summary.join('\n') + '\n');
    return;
  }
  const out = resolve(io.cwd, flags.out);
  const inputs = [...flags.metrics, ...flags.spans].map((f) => resolve(io.cwd, f));
  if (inputs.includes(out)) throw new UsageError([`--out ${flags.out}: is one of the files read`]);
  writeFileAtomic(out, text, { option: '--out', shown: flags.out });
  io.stdout(`wrote ${relative(io.cwd, out) || out}\n${summary.join('\n')}\n`);
}

/** Declares `import-telemetry` on the program. */
export function registerImportTelemetry(program: Command, io: CliIO): void {
  const collect = (v: string, prev: string[]) => [...prev, v];
  program
    .command('import-telemetry')
    .description('write a graph experiment from the servicegraph series (Prometheus text or query-API JSON) and span files (OTLP, Jaeger or Zipkin JSON); what they cannot say is left as FILL IN placeholders')
    .option('--metrics <file>', 'a dump of the servicegraph series: Prometheus text exposition or a query-API answer (repeatable)', collect, [])
    .option('--spans <file>', 'a span file: OTLP JSON, Jaeger JSON or Zipkin v2 JSON (repeatable)', collect, [])
    .addOption(new Option('--spans-format <format>', 'the span files\' format (default: told apart by their shape)').choices([...SPAN_FORMATS]))
    .option('--window <duration>', 'the window the metric counts were taken over (5m, 1h, or seconds); a query_range answer gives its own', parseWindow)
    .option('--name <name>', `the experiment's name (default: the --out file's name, or ${DEFAULT_IMPORT_NAME})`)
    .option('--duration-ms <ms>', `how long each workload runs in the experiment (default ${DEFAULT_IMPORTED_DURATION_MS})`)
    .option('--utilization <service=fraction>', "a service's utilisation (0 to 1), if known: its workers' placeholder then says how many would be that busy (repeatable)", collectUtilization, {})
    .option('--out <file>', 'write the experiment to a file (default: stdout, the notes to stderr)')
    .action((flags: ImportFlags) => importTelemetryCommand(io, flags));
}
