import { resolve } from 'node:path';
import { CheckInputError, loadStacks, LOST_NOTE_PREFIX, lostNotes, type CheckLayer } from '../check/index.js';
import { EXPORT_FORMATS, exportNameOf, exportPolicy, type ExportFormat } from '../check/exportPolicy.js';
import { canonicalJson } from '../experiment/index.js';
import { listNames } from '../policy/schema/describeValue.js';
import { importReader, readInputText, type ReadOptions } from './readInput.js';
import { UsageError } from './io.js';
import { writeFileAtomic } from './writeFileAtomic.js';

/** Where `export` writes (the CLI's io object fits). */
export interface ExportIO {
  stdout(text: string): void;
  stderr(text: string): void;
  cwd: string;
}

/** The options of `retrystorm export` as commander hands them over. */
export interface ExportFlags {
  layer?: string;
  preset?: string;
  part?: string;
  /** A configuration of several routes: the route (a gRPC service config's `pkg.Service/Method`). */
  route?: string;
  name?: string;
  sdk?: string;
  strict?: boolean;
  out?: string;
  /** Let imports leave the file's directory (`--allow-imports-outside`). */
  allowImportsOutside?: boolean;
}

/** The layer to export: from a preset, or from a file (an experiment, a stack file, or a configuration `check` reads). */
function chooseLayer(io: ExportIO, file: string | undefined, flags: ExportFlags, inputs: string[]): CheckLayer {
  if (flags.preset !== undefined) {
    if (file !== undefined) throw new CheckInputError(['give either a file or --preset, not both']);
    const [stack] = loadStacks(JSON.stringify({ layers: [{ name: flags.preset, preset: flags.preset }] }), '--preset', {});
    const layer = stack?.layers[0];
    if (layer === undefined) throw new CheckInputError([`--preset ${flags.preset}: no such preset`]);
    return layer;
  }
  if (file === undefined) throw new CheckInputError(['give a file (an experiment, a stack file or a configuration) or --preset NAME']);
  inputs.push(resolve(io.cwd, file));
  const text = readInputText(resolve(io.cwd, file), file);
  const read: ReadOptions = flags.allowImportsOutside === true ? { allowImportsOutside: true } : {};
  const readImport = importReader(file, io.cwd, read, (real) => inputs.push(real));
  const stacks = loadStacks(text, file, { readImport, ...(flags.part !== undefined ? { part: flags.part } : {}), ...(flags.route !== undefined ? { route: flags.route } : {}) });
  const routes = stacks.flatMap((s) => (s.route !== undefined ? [s.route] : []));
  if (routes.length > 1 && flags.layer === undefined) throw new CheckInputError([`${file}: has ${routes.length} routes; choose one with --route: ${listNames(routes)}`]);
  const layers = stacks.flatMap((s) => s.layers.map((l) => ({ stack: s.name, layer: l })));
  if (flags.layer !== undefined) {
    const found = layers.filter((l) => l.layer.name === flags.layer);
    if (found.length === 1) return (found[0] as { layer: CheckLayer }).layer;
    // Layers of one name with one policy (a graph's calls through one SDK, as tune's tied dimensions leave them) are one configuration.
    const policies = new Set(found.map((l) => canonicalJson(l.layer.policy)));
    if (policies.size === 1) return (found[0] as { layer: CheckLayer }).layer;
    if (found.length > 1) throw new CheckInputError([`${file}: has ${found.length} layers named ${JSON.stringify(flags.layer)} with different policies (in ${found.map((l) => l.stack).join(', ')}); choose the part with --part`]);
    throw new CheckInputError([`${file}: has no layer named ${JSON.stringify(flags.layer)} (layers: ${layers.map((l) => l.layer.name).join(', ')})`]);
  }
  if (layers.length === 1) return (layers[0] as { layer: CheckLayer }).layer;
  throw new CheckInputError([`${file}: has ${layers.length} layers; choose one with --layer (layers: ${layers.map((l) => l.layer.name).join(', ')})`]);
}

/**
 * `retrystorm export <format> [file]`: writes one layer's policy (from an experiment or stack file
 * and `--layer`, a configuration `check` reads, or `--preset`) as a configuration of `format`.
 * Several layers of that name (a service graph's calls) are one configuration when their policies
 * are the same, and an error naming their stacks otherwise.
 * Every field the format cannot express, and every class the imported file lists that the model
 * lost (a `lost:` note), is a `warning:` line on stderr; with `--strict` a warning is an error and nothing is written (exit 1). Input problems: one `error:` line each, exit 2.
 */
export function exportCommand(io: ExportIO, format: string, file: string | undefined, flags: ExportFlags): number {
  const problems: string[] = [];
  if (!(EXPORT_FORMATS as readonly string[]).includes(format)) problems.push(`the format must be one of ${EXPORT_FORMATS.join(', ')} (got ${JSON.stringify(format)})`);
  if (flags.sdk !== undefined && flags.sdk !== 'js' && flags.sdk !== 'python') problems.push(`--sdk must be one of js, python (got ${JSON.stringify(flags.sdk)})`);
  if (flags.name !== undefined && !/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/.test(flags.name)) problems.push(`--name must be a lowercase name of letters, digits, "-" and "." (got ${JSON.stringify(flags.name)})`);
  if (problems.length > 0) {
    for (const p of problems) io.stderr(`error: ${p}\n`);
    return 2;
  }
  try {
    const inputs: string[] = [];
    const layer = chooseLayer(io, file, flags, inputs);
    for (const w of layer.warnings ?? []) io.stderr(`warning: ${w}\n`);
    const lost = lostNotes(layer.notes).map((n) => `${n.slice(LOST_NOTE_PREFIX.length)} The export cannot write it.`);
    const result = exportPolicy(layer.policy, format as ExportFormat, {
      name: flags.name ?? exportNameOf(layer.name),
      ...(flags.sdk !== undefined ? { sdk: flags.sdk as 'js' | 'python' } : {}),
    });
    const level = flags.strict ? 'error' : 'warning';
    for (const w of [...lost, ...result.warnings]) io.stderr(`${level}: ${w}\n`);
    if (flags.strict && (result.warnings.length > 0 || lost.length > 0)) return 1;
    if (flags.out !== undefined) writeFileAtomic(resolve(io.cwd, flags.out), result.text, { option: '--out', shown: flags.out, inputs });
    else io.stdout(result.text);
    return 0;
  } catch (e) {
    if (!(e instanceof CheckInputError) && !(e instanceof UsageError)) throw e;
    for (const p of e.problems) io.stderr(`error: ${p}\n`);
    return 2;
  }
}
