import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { canonicalJson, expandExperiment, parseExperimentText } from '../experiment/index.js';
import {
  BUNDLE_FILES,
  buildReport,
  chartSvg,
  renderIndexHtml,
  stripSourceMap,
  type IndexEntry,
  type ReportAssets,
  type ReportCell,
  type ReportSummary,
} from '../report/index.js';
import { metricStats } from '../sweep/aggregate.js';
import { flattenMetrics } from '../sweep/flattenMetrics.js';
import { graphSummary } from '../sweep/runPlan.js';
import type { SimulationResults } from '../model/results.js';
import { jsonClone } from '../sweep/jsonStream.js';
import { readJsonFile } from '../sweep/ResultReader.js';
import { VERSION } from '../version.js';
import { renderRiskReport, riskFinding } from '../report/riskReport.js';
import { RISK_RESULT_FILE, riskResultOf } from '../sweep/riskRecord.js';
import type { RiskResult } from '../sweep/riskSweep.js';
import { writeFileAtomic } from './writeFileAtomic.js';
import { lockDir, type DirLock } from './dirLock.js';
import { UsageError } from './io.js';
import { fsErrorWords, isFsError, shownPath } from '../sweep/fileErrors.js';

/** The report page of an experiment directory. */
export const REPORT_FILE = 'index.html';
/** When and how long the run took, and its finding: kept beside the results so a rebuilt report says the same. */
export const REPORT_META_FILE = 'report.json';
/** Shared bundles of a reports directory (`run-all`, `report --shared-assets`). */
export const ASSETS_DIR = 'assets';
/** Where `--png` writes the charts, inside the experiment directory. */
export const PNG_DIR = 'png';
/** Debian's fonts-dejavu-core. */
export const DEJAVU_DIR = '/usr/share/fonts/truetype/dejavu';

/** A directory that holds no results a report can be built from. */
export class ReportInputError extends Error {}


let bundleCache: { vega: string; vegaLite: string; vegaEmbed: string } | null = null;

/** The browser bundles of vega, vega-lite and vega-embed (their build/*.min.js), source map comments removed. */
export function readBundles(): { vega: string; vegaLite: string; vegaEmbed: string } {
  if (bundleCache) return bundleCache;
  const require = createRequire(import.meta.url);
  const read = (pkg: string, file: string) => stripSourceMap(readFileSync(join(dirname(require.resolve(pkg)), file), 'utf8'));
  bundleCache = { vega: read('vega', 'vega.min.js'), vegaLite: read('vega-lite', 'vega-lite.min.js'), vegaEmbed: read('vega-embed', 'vega-embed.min.js') };
  return bundleCache;
}

/** Write the shared bundles into `<root>/assets/` (unchanged files are left alone). */
export function writeSharedAssets(root: string): void {
  const b = readBundles();
  const texts: Record<(typeof BUNDLE_FILES)[number], string> = { 'vega.min.js': b.vega, 'vega-lite.min.js': b.vegaLite, 'vega-embed.min.js': b.vegaEmbed };
  for (const f of BUNDLE_FILES) {
    const path = join(root, ASSETS_DIR, f);
    if (existsSync(path) && readFileSync(path, 'utf8') === texts[f]) continue;
    writeFileAtomic(path, texts[f]);
  }
}

/** What a report is built from, and how it is written. */
export interface WriteReportOptions {
  /** The experiment directory (index.html goes there). */
  dir: string;
  /** Where the directory will be once published, when it is written elsewhere first (a replacement): the index links there. */
  publishedDir?: string;
  summary: ReportSummary;
  /** The experiment file's text (run.json `source`), or null. */
  source: string | null;
  quick: boolean;
  set: Array<[string, unknown]>;
  date: string | null;
  runTimeMs: number | null;
  /** Reference the bundles in `<dir>/../assets/` instead of inlining them. */
  sharedAssets: boolean;
}

/** The outcome of writing a report. */
export interface WrittenReport {
  path: string;
  entry: IndexEntry;
  warnings: string[];
  charts: ReturnType<typeof buildReport>['charts'];
}

function parseSource(text: string | null): unknown {
  if (text === null) return null;
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

/** Build and write `<dir>/index.html` (and report.json), self-contained or with shared bundles. */
export function writeReport(opts: WriteReportOptions): WrittenReport {
  const assets: ReportAssets = opts.sharedAssets ? { mode: 'shared', base: `../${ASSETS_DIR}/` } : { mode: 'inline', scripts: readBundles() };
  const built = buildReport(
    opts.summary,
    { source: parseSource(opts.source), quick: opts.quick, set: opts.set, date: opts.date, runTimeMs: opts.runTimeMs, reportVersion: VERSION },
    assets,
  );
  const path = join(opts.dir, REPORT_FILE);
  const published = opts.publishedDir ?? opts.dir;
  writeFileAtomic(path, built.html);
  const claims = built.claims.map((c) => ({ part: c.part, text: c.text, status: c.status, shown: c.shown, reason: c.reason }));
  const meta = { experiment: opts.summary.experiment, date: opts.date, runTimeMs: opts.runTimeMs, finding: built.finding, claims, charts: built.charts.map((c) => c.id) };
  writeFileAtomic(join(opts.dir, REPORT_META_FILE), JSON.stringify(meta, null, 2) + '\n');
  return {
    path: join(published, REPORT_FILE),
    entry: { name: opts.summary.experiment, description: opts.summary.description, finding: built.finding, claims, href: `${basename(published).split('\\').join('/')}/${REPORT_FILE}`, date: opts.date },
    warnings: built.warnings,
    charts: built.charts,
  };
}

/**
 * The report at the end of a finished run: written beside the results (dated now), its warnings
 * and the path printed. A report that cannot be written is an error message, not a lost run: the
 * results are on disk and `retrystorm report` can try again. Returns the index entry, or null.
 */
export function writeRunReport(
  io: ReportIO,
  opts: Omit<WriteReportOptions, 'date'> & { print: boolean },
): IndexEntry | null {
  const name = opts.summary.experiment;
  try {
    const { print, ...rest } = opts;
    // Built from the summary as saved (infinite values left out), so `retrystorm report` rebuilds the same page.
    const saved = jsonClone(rest.summary) as typeof rest.summary;
    const written = writeReport({ ...rest, summary: saved, date: new Date().toISOString() });
    for (const w of written.warnings) io.stderr(`warning: ${name}: ${w}\n`);
    if (print) io.stdout(`report: ${relative(io.cwd, written.path) || written.path}\n`);
    return written.entry;
  } catch (e) {
    io.stderr(`error: ${name}: the report was not written (${(e as Error).message}); the results are saved, run \`retrystorm report ${relative(io.cwd, opts.dir) || '.'}\` to try again\n`);
    return null;
  }
}

/** Write `<root>/index.html`: every report, linked, with its finding (entries sorted by name). */
export function writeReportIndex(root: string, entries: readonly IndexEntry[]): string {
  const sorted = [...entries].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const path = join(root, REPORT_FILE);
  writeFileAtomic(path, renderIndexHtml(sorted, VERSION));
  return path;
}

/** A chart as PNG: vega renders SVG headless, resvg rasterises it with DejaVu Sans (fonts-dejavu-core). */
export async function chartPng(spec: Record<string, unknown>, title: string): Promise<Uint8Array> {
  const svg = await chartSvg(spec, title);
  // Loaded on first use: a native module the rest of the command line does not need.
  const { Resvg } = await import('@resvg/resvg-js');
  const haveDejaVu = existsSync(DEJAVU_DIR);
  const resvg = new Resvg(svg, {
    background: 'white',
    fitTo: { mode: 'zoom', value: 2 },
    font: {
      loadSystemFonts: !haveDejaVu,
      ...(haveDejaVu ? { fontDirs: [DEJAVU_DIR] } : {}),
      defaultFontFamily: 'DejaVu Sans',
      sansSerifFamily: 'DejaVu Sans',
    },
  });
  return resvg.render().asPng();
}

interface RunJson {
  experiment?: string;
  source?: string;
  quick?: boolean;
  set?: Array<[string, unknown]>;
}

function readJson<T>(path: string): T {
  try {
    return readJsonFile(path) as T;
  } catch (e) {
    throw new ReportInputError(`${shownPath(path)}: cannot read (${isFsError(e) ? fsErrorWords(e) : (e as Error).message})`);
  }
}

/** Whether a directory holds results a report can be built from. */
export function isResultDir(dir: string): boolean {
  return existsSync(join(dir, 'summary.json')) || existsSync(join(dir, 'results.json'));
}

/** A one-cell summary from a single run's results.json (its scenario from run.json's experiment, when there is one). */
function summaryFromResults(results: SimulationResults & { experiment?: string }, run: RunJson | null): ReportSummary {
  let scenario: ReportCell['scenario'] = null;
  let description = '';
  if (run?.source) {
    const parsed = parseExperimentText(run.source, 'run.json source');
    if (parsed.ok) {
      description = parsed.experiment.description;
      const expanded = expandExperiment(parsed.experiment, { quick: run.quick ?? false, set: run.set ?? [] });
      if (expanded.ok) {
        scenario = expanded.plan.parts[0]?.cells[0]?.scenario ?? null;
        description = expanded.plan.description;
      }
    }
  }
  const flat = flattenMetrics(results);
  const metrics = Object.fromEntries(Object.entries(flat).map(([k, v]) => [k, metricStats([v])]));
  const params = {};
  return {
    experiment: results.experiment ?? run?.experiment ?? 'experiment',
    description,
    seed: results.seed,
    version: results.version,
    cells: [
      {
        key: canonicalJson({ part: 'main', variant: 'default', params }),
        part: 'main',
        variant: 'default',
        params,
        state: 'ok',
        replications: 1,
        errors: [],
        metrics,
        scenario,
        timeSeries: { typical: results.timeSeries, mean: null },
        ...(results.services ? { graph: graphSummary(results) } : {}),
        samples: { replications: [0], values: Object.fromEntries(Object.entries(flat).map(([k, v]) => [k, [v]])) },
      },
    ],
  };
}

/** Rebuild one experiment directory's report from its saved results (summary.json + run.json, or results.json). */
export async function rebuildReport(dir: string, opts: { png: boolean; sharedAssets: boolean }): Promise<WrittenReport & { pngs: string[] }> {
  const summaryPath = join(dir, 'summary.json');
  const runPath = join(dir, 'run.json');
  const run = existsSync(runPath) ? readJson<RunJson>(runPath) : null;
  let summary: ReportSummary;
  let resultsFile: string;
  if (existsSync(summaryPath)) {
    summary = readJson<ReportSummary>(summaryPath);
    resultsFile = summaryPath;
  } else if (existsSync(join(dir, 'results.json'))) {
    resultsFile = join(dir, 'results.json');
    summary = summaryFromResults(readJson<SimulationResults & { experiment?: string }>(resultsFile), run);
  } else {
    throw new ReportInputError(`${dir}: no summary.json or results.json to build a report from`);
  }
  if (!summary || !Array.isArray(summary.cells)) throw new ReportInputError(`${resultsFile}: not a retrystorm summary`);
  const metaPath = join(dir, REPORT_META_FILE);
  const meta = existsSync(metaPath) ? readJson<{ date?: string | null; runTimeMs?: number | null }>(metaPath) : {};
  const written = writeReport({
    dir,
    summary,
    source: typeof run?.source === 'string' ? run.source : null,
    quick: run?.quick ?? false,
    set: run?.set ?? [],
    date: meta.date ?? statSync(resultsFile).mtime.toISOString(),
    runTimeMs: meta.runTimeMs ?? null,
    sharedAssets: opts.sharedAssets,
  });
  const pngs: string[] = [];
  if (opts.png) {
    for (const c of written.charts) {
      const path = join(dir, PNG_DIR, `${c.id}.png`);
      writeFileAtomic(path, await chartPng(c.spec, c.title));
      pngs.push(path);
    }
  }
  return { ...written, pngs };
}

/** Where `retrystorm report` prints to. */
export interface ReportIO {
  stdout(text: string): void;
  stderr(text: string): void;
  cwd: string;
}

/** The answer a `tune` writes in its output directory (beside its report and rounds). */
export const TUNE_FILE = 'tune.json';

/** Whether a directory holds a finished search (`tune.json`) and no run's results. */
function isTuneDir(dir: string): boolean {
  return existsSync(join(dir, TUNE_FILE)) && !isResultDir(dir);
}

/**
 * The index entry of a search's directory, read from its tune.json (untrusted: each field must be
 * a string, else the directory is refused with the field named); its report is kept as `tune` wrote it.
 */
function tuneIndexEntry(dir: string): IndexEntry {
  const answer = readJsonFile(join(dir, TUNE_FILE)) as Record<string, unknown> | null;
  const field = (name: string, required: boolean): string => {
    const v = answer?.[name];
    if (typeof v === 'string') return v;
    if (!required && v === undefined) return '';
    throw new ReportInputError(`${shownPath(join(dir, TUNE_FILE))}: ${name} must be a string`);
  };
  return { name: field('experiment', true), description: field('description', false), finding: field('headline', true), href: `${basename(dir)}/${REPORT_FILE}`, date: statSync(join(dir, TUNE_FILE)).mtime.toISOString() };
}

/**
 * `retrystorm report DIR`: rebuild the report of an experiment directory, or of every experiment
 * directory inside DIR plus DIR/index.html, from the saved results, without running anything.
 * Returns the exit code.
 */
export async function reportCommand(io: ReportIO, dirArg: string, opts: { png: boolean; sharedAssets: boolean }): Promise<number> {
  const dir = resolve(io.cwd, dirArg);
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new ReportInputError(`${shownPath(dirArg)}: no such directory`);
  const show = (p: string) => relative(io.cwd, p) || '.';
  if (isRiskDir(dir)) {
    const lock = lockDir(dir, show(dir), 'report');
    try {
      if (opts.sharedAssets) writeSharedAssets(dirname(dir));
      io.stdout(`report written to ${show(rebuildRiskReport(dir, show(dir), opts.sharedAssets).path)}\n`);
      return 0;
    } finally {
      lock.release();
    }
  }
  if (isResultDir(dir)) {
    const lock = lockDir(dir, show(dir), 'report');
    try {
      if (opts.sharedAssets) writeSharedAssets(dirname(dir));
      const r = await rebuildReport(dir, opts);
      for (const w of r.warnings) io.stderr(`warning: ${w}\n`);
      io.stdout(`report written to ${show(r.path)}\n`);
      for (const p of r.pngs) io.stdout(`  ${show(p)}\n`);
      return 0;
    } finally {
      lock.release();
    }
  }
  // Hidden directories are left out: a replacement in progress (`.<name>.replacing`) is nobody's report yet.
  const subdirs = readdirSync(dir)
    .filter((n) => !n.startsWith('.'))
    .sort()
    .map((n) => join(dir, n))
    .filter((p) => isDirectory(p) && (isResultDir(p) || isTuneDir(p) || isRiskDir(p)));
  if (subdirs.length === 0) throw new ReportInputError(`${shownPath(dirArg)}: holds no experiment results (summary.json, results.json or risk.json), nor directories that do`);
  const lock = lockDir(dir, show(dir), 'report');
  try {
    if (opts.sharedAssets) writeSharedAssets(dir);
    const entries: IndexEntry[] = [];
    let code = 0;
    for (const sub of subdirs) {
      // One directory that cannot be read (a corrupt summary, a run in progress) is said and skipped: the others' reports and the index are still written.
      let r: Awaited<ReturnType<typeof rebuildReport>>;
      let subLock: DirLock | null = null;
      try {
        subLock = lockDir(sub, show(sub), 'report');
        if (isTuneDir(sub)) {
          // A search's report is written by tune from its rounds; only its index entry is read here.
          entries.push(tuneIndexEntry(sub));
          io.stdout(`search's report kept: ${show(join(sub, REPORT_FILE))}\n`);
          continue;
        }
        if (isRiskDir(sub)) {
          const risk = rebuildRiskReport(sub, show(sub), opts.sharedAssets);
          entries.push(risk.entry);
          io.stdout(`report written to ${show(risk.path)}\n`);
          continue;
        }
        r = await rebuildReport(sub, opts);
      } catch (e) {
        if (!(e instanceof Error)) throw e;
        const input = e instanceof UsageError || e instanceof ReportInputError || e instanceof SyntaxError;
        const why = e instanceof UsageError ? e.problems.join('; ') : input ? e.message : `${show(sub)}: the report could not be built (${e.message})`;
        io.stderr(`error: ${why}; its report is left out of the index\n`);
        code = Math.max(code, input ? 2 : 1);
        continue;
      } finally {
        subLock?.release();
      }
      for (const w of r.warnings) io.stderr(`warning: ${r.entry.name}: ${w}\n`);
      io.stdout(`report written to ${show(r.path)}${r.pngs.length > 0 ? ` (${r.pngs.length} PNG charts in ${show(join(sub, PNG_DIR))})` : ''}\n`);
      entries.push(r.entry);
    }
    io.stdout(`index written to ${show(writeReportIndex(dir, entries))}\n`);
    return code;
  } finally {
    lock.release();
  }
}

/** How a risk report is written: when and how long the estimates took, and how vega is loaded. */
export interface RiskReportWrite {
  quick: boolean;
  /** How long the estimates took (null: not known). */
  runTimeMs: number | null;
  /** When they were made (default: now). */
  date?: string;
  /** Reference the bundles in `<dir>/../assets/` instead of inlining them (run-all, `report --shared-assets`). */
  sharedAssets?: boolean;
  /** Where the directory will be once published, when it is written elsewhere first (a replacement): the index links there. */
  publishedDir?: string;
}

/**
 * The report of a risk result as `<dir>/index.html` (`shownDir` names the directory in messages),
 * and report.json beside it (when, how long, the finding), so a rebuilt report says the same;
 * returns its index entry.
 */
export function writeRiskReport(dir: string, shownDir: string, result: RiskResult, opts: RiskReportWrite): IndexEntry {
  const date = opts.date ?? new Date().toISOString();
  const assets: ReportAssets = opts.sharedAssets ? { mode: 'shared', base: `../${ASSETS_DIR}/` } : { mode: 'inline', scripts: readBundles() };
  const html = renderRiskReport(result, { version: VERSION, date, runTimeMs: opts.runTimeMs, quick: opts.quick, assets });
  writeFileAtomic(join(dir, REPORT_FILE), html, { shown: join(shownDir, REPORT_FILE) });
  const finding = riskFinding(result);
  const meta = { experiment: result.experiment, date, runTimeMs: opts.runTimeMs, finding };
  writeFileAtomic(join(dir, REPORT_META_FILE), JSON.stringify(meta, null, 2) + '\n', { shown: join(shownDir, REPORT_META_FILE) });
  const href = `${basename(opts.publishedDir ?? dir).split('\\').join('/')}/${REPORT_FILE}`;
  return { name: result.experiment, description: result.description, finding, href, date };
}

/** Whether a directory holds `retrystorm risk`'s estimates (risk.json). */
function isRiskDir(dir: string): boolean {
  return existsSync(join(dir, RISK_RESULT_FILE)) && !isResultDir(dir);
}

/** report.json's date and run time, each when it is of its type (the file is untrusted; a wrong or missing field is not known). */
function savedMeta(dir: string): { date?: string; runTimeMs: number | null } {
  let meta: unknown = null;
  try {
    meta = JSON.parse(readFileSync(join(dir, REPORT_META_FILE), 'utf8'));
  } catch {
    /* no report.json: the date is the results', the run time not known */
  }
  const m = meta !== null && typeof meta === 'object' ? (meta as Record<string, unknown>) : {};
  return { ...(typeof m.date === 'string' ? { date: m.date } : {}), runTimeMs: typeof m.runTimeMs === 'number' && m.runTimeMs >= 0 ? m.runTimeMs : null };
}

/**
 * Rebuild a risk directory's report from its risk.json (untrusted: a field that is wrong is named),
 * dated and timed as report.json says (else risk.json's time); its index entry.
 */
function rebuildRiskReport(dir: string, shownDir: string, sharedAssets: boolean): { path: string; entry: IndexEntry } {
  const file = join(dir, RISK_RESULT_FILE);
  let raw: unknown;
  try {
    raw = readJsonFile(file);
  } catch (e) {
    throw new ReportInputError(`${shownPath(file)}: not valid JSON (${(e as Error).message})`);
  }
  const result = riskResultOf(raw);
  if (typeof result === 'string') throw new ReportInputError(`${shownPath(file)}: ${result}`);
  let quick = false;
  try {
    quick = (JSON.parse(readFileSync(join(dir, 'run.json'), 'utf8')) as { quick?: unknown }).quick === true;
  } catch {
    /* without a manifest the page says nothing of quick mode */
  }
  const meta = savedMeta(dir);
  const entry = writeRiskReport(dir, shownDir, result, { quick, runTimeMs: meta.runTimeMs, date: meta.date ?? statSync(file).mtime.toISOString(), sharedAssets });
  return { path: join(dir, REPORT_FILE), entry };
}

/** Whether a path is a directory (a dangling link or an unreadable entry is not). */
function isDirectory(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}
