import { scenarioSchema } from '../experiment/index.js';
import { formatDuration, formatSetDuration, type DurationUnit } from '../policy/formatDuration.js';
import { docsAlong, type SchemaDoc } from '../policy/schema/schemaDocs.js';
import { paramEntries } from './format.js';
import { MEMORY_CEILING_METRIC } from '../sweep/flattenMetrics.js';

/**
 * Names, titles and units of the metrics of summary.json (the dotted names of `flattenMetrics`),
 * and titles of swept parameters (from the scenario schema's documentation), for axis titles, tables
 * and hint validation.
 */

/** The values a metric can take, both ends included (`max` Infinity: no upper bound). */
export interface MetricRange {
  min: number;
  max: number;
}

/** A share of something (a success rate, a hit ratio, a share of replications): 0 to 1. */
export const FRACTION: MetricRange = { min: 0, max: 1 };
/** A count, a time, a rate per second, a ratio of counts: 0 or more. */
export const NON_NEGATIVE: MetricRange = { min: 0, max: Infinity };
/** What an unknown name may take: anything. */
const ANY: MetricRange = { min: -Infinity, max: Infinity };

/**
 * A metric's title, unit and range, e.g. `{ title: 'Completion time', unit: 'ms', range: NON_NEGATIVE }`.
 * The range is what any run can give (tune refuses a bound outside it).
 */
export interface MetricInfo {
  title: string;
  unit: string;
  range: MetricRange;
}

/**
 * A thing of the scenario a metric's name refers to (`services.db.utilization`: service `db`), which
 * the scenario must have for the metric to be measured at all.
 */
export type MetricSubject =
  | { kind: 'service' | 'window' | 'layer' | 'workload' | 'cluster' | 'binMs'; name: string }
  | { kind: 'edge'; caller: string; callee: string }
  | { kind: 'cache'; service: string; name: string };

const FIXED: Record<string, MetricInfo> = {
  amplification: { title: 'Amplification', unit: 'leaf calls per operation', range: NON_NEGATIVE },
  leafCalls: { title: 'Leaf calls', unit: 'calls', range: NON_NEGATIVE },
  writes: { title: 'Writes', unit: 'calls', range: NON_NEGATIVE },
  reads: { title: 'Reads', unit: 'calls', range: NON_NEGATIVE },
  completionTimeMs: { title: 'Completion time', unit: 'ms', range: NON_NEGATIVE },
  goodputPerSec: { title: 'Goodput', unit: 'operations/s', range: NON_NEGATIVE },
  'operations.offered': { title: 'Operations offered', unit: 'operations', range: NON_NEGATIVE },
  'operations.succeeded': { title: 'Operations succeeded', unit: 'operations', range: NON_NEGATIVE },
  'operations.failed': { title: 'Operations failed', unit: 'operations', range: NON_NEGATIVE },
  'operations.unfinished': { title: 'Operations unfinished', unit: 'operations', range: NON_NEGATIVE },
  // Over the configured workers: a capacity window may give more, so it can pass 1.
  'server.utilization': { title: 'Server utilisation', unit: 'fraction of workers busy', range: NON_NEGATIVE },
  'server.meanBusy': { title: 'Mean busy workers', unit: 'workers', range: NON_NEGATIVE },
  'server.wastedWorkMs': { title: 'Wasted server work', unit: 'ms', range: NON_NEGATIVE },
  'server.maxQueue': { title: 'Maximum queue', unit: 'requests', range: NON_NEGATIVE },
  'server.served': { title: 'Requests served', unit: 'requests', range: NON_NEGATIVE },
  'server.shed': { title: 'Requests shed', unit: 'requests', range: NON_NEGATIVE },
  'server.dropped': { title: 'Requests dropped', unit: 'requests', range: NON_NEGATIVE },
  'server.faulted': { title: 'Requests faulted', unit: 'requests', range: NON_NEGATIVE },
  'server.cancelled': { title: 'Requests cancelled', unit: 'requests', range: NON_NEGATIVE },
  'server.queuedAtEnd': { title: 'Queued at the end', unit: 'requests', range: NON_NEGATIVE },
  'server.inServiceAtEnd': { title: 'In service at the end', unit: 'requests', range: NON_NEGATIVE },
  'server.refused': { title: 'Requests refused by down backends', unit: 'requests', range: NON_NEGATIVE },
  'server.rejected': { title: 'Requests of bad input rejected', unit: 'requests', range: NON_NEGATIVE },
  'server.lost': { title: 'Requests lost by backends going down', unit: 'requests', range: NON_NEGATIVE },
  simulatedMs: { title: 'Measured simulated time', unit: 'ms', range: NON_NEGATIVE },
  successRate: { title: 'Success rate', unit: 'fraction of operations', range: FRACTION },
  'fleet.crashes': { title: 'Backend crashes', unit: 'crashes', range: NON_NEGATIVE },
  'fleet.ejections': { title: 'Outlier ejections', unit: 'ejections', range: NON_NEGATIVE },
  'fleet.maxDown': { title: 'Most backends down at once', unit: 'backends', range: NON_NEGATIVE },
  truncated: { title: 'Truncated runs', unit: 'fraction of replications', range: FRACTION },
  [MEMORY_CEILING_METRIC]: { title: 'Runs stopped at the memory ceiling', unit: 'runs (present only in those)', range: NON_NEGATIVE },
};

const STATS: Record<string, string> = { mean: 'Mean', p50: 'p50', p90: 'p90', p99: 'p99', p999: 'p99.9', max: 'Maximum' };

/** A bin width of a metric's name (`10`, in ms) as people read it: `10 ms`, `1 s`. */
function binText(ms: string | undefined): string {
  return formatDuration(Number(ms));
}

/** Title and unit of a count or time (0 or more). */
function counted(title: string, unit: string): MetricInfo {
  return { title, unit, range: NON_NEGATIVE };
}

/**
 * Patterns of the metric names that depend on the experiment (layers, bin widths, reasons), each
 * with what its name refers to in the scenario (`subjects`), if anything.
 */
const PATTERNS: Array<{ re: RegExp; info: (m: RegExpExecArray) => MetricInfo; subjects?: (m: RegExpExecArray) => MetricSubject[] }> = [
  {
    re: /^latencyMs\.(count|mean|p50|p90|p99|p999|max)$/,
    info: (m) => (m[1] === 'count' ? counted('Successful operations', 'operations') : counted(`${STATS[m[1] as string]} latency of successes`, 'ms')),
  },
  {
    re: /^operationMs\.(count|mean|p50|p90|p99|p999|max)$/,
    info: (m) => (m[1] === 'count' ? counted('Operations ended', 'operations') : counted(`${STATS[m[1] as string]} time of all operations`, 'ms')),
  },
  { re: /^giveUps\.(.+)$/, info: (m) => counted(`Operations ended by ${m[1]}`, 'operations') },
  { re: /^attempts\.(.+)\.first$/, info: (m) => counted(`First tries at ${m[1]}`, 'attempts'), subjects: (m) => [{ kind: 'layer', name: m[1] as string }] },
  { re: /^attempts\.(.+)\.retries$/, info: (m) => counted(`Retries at ${m[1]}`, 'attempts'), subjects: (m) => [{ kind: 'layer', name: m[1] as string }] },
  {
    re: /^clustering\.([0-9.e+-]+)ms\.peakToMean$/,
    info: (m) => counted(`Peak-to-mean of leaf arrivals in ${binText(m[1])} bins`, 'largest bin / mean bin'),
    subjects: (m) => [{ kind: 'binMs', name: m[1] as string }],
  },
  {
    re: /^clustering\.([0-9.e+-]+)ms\.dispersionIndex$/,
    info: (m) => counted(`Index of dispersion of leaf arrivals in ${binText(m[1])} bins`, 'variance / mean'),
    subjects: (m) => [{ kind: 'binMs', name: m[1] as string }],
  },
  {
    re: /^clustering\.([0-9.e+-]+)ms\.maxBin$/,
    info: (m) => counted(`Largest ${binText(m[1])} bin of leaf arrivals`, 'calls'),
    subjects: (m) => [{ kind: 'binMs', name: m[1] as string }],
  },
  {
    re: /^retryClustering\.([0-9.e+-]+)ms\.peakToMean$/,
    info: (m) => counted(`Peak-to-mean of retry arrivals in ${binText(m[1])} bins`, 'largest bin / mean bin'),
    subjects: (m) => [{ kind: 'binMs', name: m[1] as string }],
  },
  {
    re: /^retryClustering\.([0-9.e+-]+)ms\.maxBin$/,
    info: (m) => counted(`Largest ${binText(m[1])} bin of retry arrivals`, 'calls'),
    subjects: (m) => [{ kind: 'binMs', name: m[1] as string }],
  },
  // A service graph's edges in a window (before the window's own measures, whose name part would take them).
  {
    re: /^windows\.([^.]+)\.edges\.(.+?)->(.+)\.(calls|retries|amplification)$/,
    info: (m) => edgeInfo(`${m[2]} -> ${m[3]}`, m[4] as string, ` in window ${m[1]}`),
    subjects: (m) => [
      { kind: 'window', name: m[1] as string },
      { kind: 'edge', caller: m[2] as string, callee: m[3] as string },
    ],
  },
  {
    re: /^windows\.(.+)\.(amplification|successRate|goodputPerSec|recovered|recoveryMs)$/,
    info: (m) =>
      ({
        amplification: counted(`Amplification in window ${m[1]}`, 'leaf calls per operation'),
        successRate: { title: `Success rate in window ${m[1]}`, unit: 'fraction of operations', range: FRACTION },
        goodputPerSec: counted(`Goodput in window ${m[1]}`, 'operations/s'),
        recovered: { title: `Recovered by the end of window ${m[1]}`, unit: 'fraction of replications', range: FRACTION },
        recoveryMs: counted(`Time from the start of window ${m[1]} until goodput kept up with demand`, 'ms (runs that got there)'),
      })[m[2] as string] as MetricInfo,
    subjects: (m) => [{ kind: 'window', name: m[1] as string }],
  },
  // A service's lookaside caches (README, "Caches").
  {
    re: /^services\.([^.]+)\.caches\.(.+)\.(lookups|hits|hitRatio|coalesced|fills|lateSuccesses)$/,
    info: (m) =>
      ({
        lookups: counted(`Lookups in cache ${m[2]} of ${m[1]}`, 'lookups'),
        hits: counted(`Hits in cache ${m[2]} of ${m[1]}`, 'lookups'),
        hitRatio: { title: `Hit ratio of cache ${m[2]} of ${m[1]}`, unit: 'hits / lookups', range: FRACTION },
        coalesced: counted(`Coalesced misses in cache ${m[2]} of ${m[1]}`, 'lookups'),
        fills: counted(`Fills of cache ${m[2]} of ${m[1]}`, 'entries'),
        lateSuccesses: counted(`Successes too late to fill cache ${m[2]} of ${m[1]}`, 'calls'),
      })[m[3] as string] as MetricInfo,
    subjects: (m) => [
      { kind: 'service', name: m[1] as string },
      { kind: 'cache', service: m[1] as string, name: m[2] as string },
    ],
  },
  { re: /^fleet\.(.+)\.crashes$/, info: (m) => counted(`Backend crashes in cluster ${m[1]}`, 'crashes'), subjects: (m) => [{ kind: 'cluster', name: m[1] as string }] },
  { re: /^fleet\.(.+)\.served$/, info: (m) => counted(`Requests served by cluster ${m[1]}`, 'requests'), subjects: (m) => [{ kind: 'cluster', name: m[1] as string }] },
  // Service graphs (README, "Service graphs"): edges, services, workloads and the cascade timeline.
  {
    re: /^edges\.(.+?)->(.+?)\.workloads\.(.+)\.(calls|retries|ownRetries|amplification)$/,
    info: (m) => edgeInfo(`${m[1]} -> ${m[2]}`, m[4] as string, ` of workload ${m[3]}`),
    subjects: (m) => [
      { kind: 'edge', caller: m[1] as string, callee: m[2] as string },
      { kind: 'workload', name: m[3] as string },
    ],
  },
  {
    re: /^edges\.(.+?)->(.+)\.(calls|retries|ownRetries|amplification|bulkheadFull)$/,
    info: (m) => edgeInfo(`${m[1]} -> ${m[2]}`, m[3] as string, ''),
    subjects: (m) => [{ kind: 'edge', caller: m[1] as string, callee: m[2] as string }],
  },
  {
    re: /^services\.(.+)\.(utilization|first|retries|arrivals|refusedInFlight|crashes|served|shed|dropped|refused|faulted|rejected|lost|cancelled|wastedWorkMs|meanBusy|maxQueue|inServiceAtEnd)$/,
    info: (m) => serviceInfo(m[1] as string, m[2] as string),
    subjects: (m) => [{ kind: 'service', name: m[1] as string }],
  },
  {
    re: /^cascade\.(.+)\.(trouble|crashed|recovered)AtMs$/,
    info: (m) => counted(`${CASCADE_TITLES[m[2] as string]} ${m[1]}`, 'ms'),
    subjects: (m) => [{ kind: 'service', name: m[1] as string }],
  },
  {
    re: /^workloads\.([^.]+)\.(.+)$/,
    info: (m) => {
      const inner = metricInfo((m[2] as string) === 'leafCalls' ? 'leafCalls' : (m[2] as string));
      return { title: `${inner.title} of workload ${m[1]}`, unit: inner.unit, range: inner.range };
    },
    subjects: (m) => [{ kind: 'workload', name: m[1] as string }],
  },
];

const CASCADE_TITLES: Record<string, string> = { trouble: 'First in trouble:', crashed: 'First crash:', recovered: 'Recovered:' };

function edgeInfo(edge: string, field: string, of: string): MetricInfo {
  switch (field) {
    case 'amplification':
      return counted(`Calls on ${edge}${of}`, 'calls per operation');
    case 'retries':
      return counted(`Retries on ${edge}${of}`, 'calls');
    case 'ownRetries':
      return counted(`Own retries of ${edge}${of}`, 'calls');
    case 'bulkheadFull':
      return counted(`Bulkhead refusals on ${edge}`, 'attempts');
    default:
      return counted(`Calls on ${edge}${of}`, 'calls');
  }
}

function serviceInfo(service: string, field: string): MetricInfo {
  if (field === 'utilization') return { ...(FIXED['server.utilization'] as MetricInfo), title: `Utilisation of ${service}` };
  if (field === 'refusedInFlight') return counted(`Refused by ${service} at maxInFlight`, 'requests');
  if (field === 'crashes') return counted(`Backend crashes of ${service}`, 'crashes');
  if (field === 'first' || field === 'retries' || field === 'arrivals') return counted(`${field === 'first' ? 'First tries' : field === 'retries' ? 'Retries' : 'Arrivals'} at ${service}`, 'requests');
  const server = FIXED[`server.${field}`] as MetricInfo;
  return { ...server, title: `${server.title} at ${service}` };
}

/** Every metric name a report hint may name: the fixed names, then the patterns. */
export const METRIC_NAMES_TEXT = [
  ...Object.keys(FIXED),
  'latencyMs.<mean|p50|p90|p99|p999|max|count>',
  'operationMs.<mean|p50|p90|p99|p999|max|count>',
  'giveUps.<reason>',
  'attempts.<layer>.first',
  'attempts.<layer>.retries',
  'clustering.<binMs>ms.peakToMean',
  'clustering.<binMs>ms.dispersionIndex',
  'clustering.<binMs>ms.maxBin',
  'retryClustering.<binMs>ms.peakToMean',
  'retryClustering.<binMs>ms.maxBin',
  'windows.<name>.<amplification|successRate|goodputPerSec|recovered|recoveryMs>',
  'windows.<name>.edges.<caller>-><callee>.<calls|retries|amplification>',
  'services.<service>.caches.<cache>.<lookups|hits|hitRatio|coalesced|fills|lateSuccesses>',
  'fleet.<cluster>.crashes',
  'fleet.<cluster>.served',
  'edges.<caller>-><callee>.<calls|retries|ownRetries|amplification|bulkheadFull>',
  'edges.<caller>-><callee>.workloads.<workload>.<calls|retries|ownRetries|amplification>',
  'services.<service>.<field>',
  'workloads.<workload>.<metric>',
  'cascade.<service>.<trouble|crashed|recovered>AtMs',
].join(', ');

/** Whether `name` is a metric of summary.json (by name; whether a run measured it is another matter). */
export function isMetricName(name: string): boolean {
  return name in FIXED || PATTERNS.some((p) => p.re.test(name));
}

/** Title and unit of a metric (an unknown name is its own title, without unit). */
export function metricInfo(name: string): MetricInfo {
  const fixed = FIXED[name];
  if (fixed) return fixed;
  for (const p of PATTERNS) {
    const m = p.re.exec(name);
    if (m) return p.info(m);
  }
  return { title: name, unit: '', range: ANY };
}

/**
 * What a metric's name refers to in the scenario (`services.db.caches.users.hits`: service `db` and
 * its cache `users`); empty for the metrics of every run (`amplification`) and for unknown names.
 */
export function metricSubjects(name: string): MetricSubject[] {
  if (name in FIXED) return [];
  for (const p of PATTERNS) {
    const m = p.re.exec(name);
    if (m) return p.subjects?.(m) ?? [];
  }
  return [];
}

/** Whether a metric is a duration (its unit is `ms`): people read it in the unit that suits its size (`formatDuration`). */
export function isDurationMetric(name: string): boolean {
  return /^ms\b/.test(metricInfo(name).unit);
}

/** A duration metric's unit with its milliseconds written in `u` (`ms (runs that got there)` -> `s (runs that got there)`). */
export function unitIn(unit: string, u: DurationUnit): string {
  return unit.replace(/^ms\b/, u.unit);
}

/** `Title (unit)`: an axis title that carries its unit. */
export function metricTitle(name: string): string {
  const { title, unit } = metricInfo(name);
  return unit ? `${title} (${unit})` : title;
}

/**
 * An axis title: `Title (unit)`, broken into lines of at most `width` characters when it is long
 * (vega draws an array as several lines), so that long titles do not run past the chart.
 */
export function axisTitle(text: string, width = 44): string | string[] {
  if (text.length <= width) return text;
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line && (line + ' ' + word).length > width) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(line);
  return lines;
}

/** The docs of each segment of a swept parameter's path in the scenario schema, or null when it has none. */
function fieldDocs(path: string): SchemaDoc[] | null {
  return docsAlong(scenarioSchema, path.split('.'));
}

/**
 * The unit of a swept parameter: the unit its field's documentation gives (`concurrency` ->
 * workers), else the one its name carries (`...Ms` -> ms, `...PerSec` -> /s; a distribution's
 * `mean` of `serviceMs` -> ms); '' when it has none.
 */
export function paramUnit(path: string): string {
  const segs = path.split('.');
  const docs = fieldDocs(path);
  const own = docs?.[docs.length - 1]?.unit;
  if (own !== undefined) return own;
  const named = (seg: string | undefined) => (seg === undefined ? '' : /Ms$/.test(seg) ? 'ms' : /PerSec$/.test(seg) ? '/s' : '');
  const last = segs[segs.length - 1];
  return named(last) || (last !== 'dist' && docs !== null ? named(segs[segs.length - 2]) : '');
}

/** Fields that only group others: a field inside them is named without them (`Clients`, not `Workload clients`). */
const CONTAINERS = new Set(['workload', 'leaf', 'stack', 'policy', 'network', 'server', 'metrics']);

/** `baseMs` -> `Base`, `peakRatePerSec` -> `Peak rate`: a field name as words, its unit suffix dropped. */
function words(name: string): string {
  const bare = name.replace(/(Ms|PerSec)$/, '');
  const w = bare.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase();
  return w.charAt(0).toUpperCase() + w.slice(1);
}

/**
 * A swept parameter in words: its field's title from the schema's documentation (`concurrency`
 * -> Workers), else its name as words, and where it is (`Timer tick at layer 0`, `Backoff kind at
 * layer 1`, `Server workers`), never the raw path. A field inside another (a kind, a mode, a
 * distribution's parameter, a budget's ratio) is named after the field it belongs to as well
 * (`Backoff kind`, `Service time mean`, `Budget ratio`).
 */
export function paramLabel(path: string): string {
  const segs = path.split('.');
  const docs = fieldDocs(path);
  const title = (i: number) => docs?.[i]?.title ?? words(segs[i] ?? path);
  const i = segs.length - 1;
  const last = segs[i] ?? path;
  const parent = i > 0 && !/^(\d+|\*)$/.test(segs[i - 1] ?? '') ? i - 1 : -1;
  let name = title(i);
  if (docs?.[i]?.title === undefined && parent >= 0) {
    if (last === 'kind' || last === 'mode') name = `${title(parent)} ${last}`;
    else if (last === 'dist') name = `${title(parent)} distribution`;
    else if (docs !== null && !CONTAINERS.has(segs[parent] ?? '')) name = `${title(parent)} ${name.toLowerCase()}`;
  }
  const layer = segs[0] !== 'stack' ? '' : /^\d+$/.test(segs[1] ?? '') ? ` at layer ${segs[1]}` : segs[1] === '*' ? ' at every layer' : '';
  const where = segs[0] === 'leaf' && !layer && !/^(Server|Fault|Queue)/.test(name) ? 'Server ' : '';
  return `${where}${where ? name.charAt(0).toLowerCase() + name.slice(1) : name}${layer}`;
}

/** Axis title of a swept parameter: its name in words and its unit, e.g. `Clients` (the unit is in the name), `Timer tick at layer 0 (ms)`. */
export function paramTitle(path: string): string {
  const unit = paramUnit(path);
  const label = paramLabel(path);
  return unit && !label.toLowerCase().includes(unit.toLowerCase()) ? `${label} (${unit})` : label;
}

/**
 * A cell's swept parameters in words, each changed field once (`Timer tick at layer 0 = 15.6 ms`,
 * `Attempts at every layer = 2`, a duration in the unit that reads best: `Spike duration = 3 s`),
 * for the labels of charts and tables; '' without any.
 */
export function paramsInWords(params: Record<string, unknown>): string {
  return paramEntries(params)
    .map((e) => {
      const unit = paramUnit(e.name);
      const label = paramLabel(e.name);
      const numeric = /^-?[0-9.e+]+$/.test(e.value);
      if (numeric && unit === 'ms') return `${label} = ${formatSetDuration(Number(e.value))}`;
      const shown = unit && numeric && !label.toLowerCase().includes(unit.toLowerCase());
      return `${label} = ${e.value}${shown ? ` ${unit}` : ''}`;
    })
    .join(', ');
}
