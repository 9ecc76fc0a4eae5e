import { isLayerSelector, parseLayerSelector, scenarioSchema } from '../experiment/index.js';
import { formatDuration, formatSetDuration, type DurationUnit } from '../policy/formatDuration.js';
import { docsAlong, type SchemaDoc } from '../policy/schema/schemaDocs.js';
import { paramEntries } from './format.js';
import { isFraction } from './specs/common.js';
import { MEMORY_CEILING_METRIC } from '../sweep/flattenMetrics.js';
import { metricRange, type MetricRange } from '../metrics/metricBounds.js';

/**
 * Names, titles and units of the metrics of summary.json (the dotted names of `flattenMetrics`),
 * and titles of swept parameters (from the scenario schema's documentation), for axis titles, tables
 * and hint validation.
 */

export type { MetricRange };

/** What an unknown name may take: anything. */
const ANY: MetricRange = { min: -Infinity, max: Infinity };

/**
 * A metric's title, unit and range, e.g. `{ title: 'Completion time', unit: 'ms', range: { min: 0, max: Infinity } }`.
 * The range is what any run can give (tune refuses a bound outside it), from `metricRange` of
 * `src/metrics/metricBounds.ts`, where which metric is a 0/1 outcome, a fraction or 0 or more is written.
 */
export interface MetricInfo {
  title: string;
  unit: string;
  range: MetricRange;
}

/** A title and unit, as the tables below write them (the range is added from the metric's bounds). */
type Titled = Omit<MetricInfo, 'range'>;

/**
 * A thing of the scenario a metric's name refers to (`services.db.utilization`: service `db`), which
 * the scenario must have for the metric to be measured at all.
 */
export type MetricSubject =
  | { kind: 'service' | 'window' | 'layer' | 'workload' | 'cluster' | 'binMs' | 'sharedCache'; name: string }
  | { kind: 'edge'; caller: string; callee: string }
  | { kind: 'cache'; service: string; name: string };

const FIXED: Record<string, Titled> = {
  amplification: { title: 'Amplification', unit: 'leaf calls per operation' },
  leafCalls: { title: 'Leaf calls', unit: 'calls' },
  writes: { title: 'Writes', unit: 'calls' },
  reads: { title: 'Reads', unit: 'calls' },
  completionTimeMs: { title: 'Completion time', unit: 'ms' },
  goodputPerSec: { title: 'Goodput', unit: 'operations/s' },
  'operations.offered': { title: 'Operations offered', unit: 'operations' },
  'operations.succeeded': { title: 'Operations succeeded', unit: 'operations' },
  'operations.failed': { title: 'Operations failed', unit: 'operations' },
  'operations.unfinished': { title: 'Operations unfinished', unit: 'operations' },
  // Over the configured workers: a capacity window may give more, so it can pass 1.
  'server.utilization': { title: 'Server utilisation', unit: 'fraction of workers busy' },
  'server.meanBusy': { title: 'Mean busy workers', unit: 'workers' },
  'server.wastedWorkMs': { title: 'Wasted server work', unit: 'ms' },
  'server.maxQueue': { title: 'Maximum queue', unit: 'requests' },
  'server.served': { title: 'Requests served', unit: 'requests' },
  'server.shed': { title: 'Requests shed', unit: 'requests' },
  'server.dropped': { title: 'Requests dropped', unit: 'requests' },
  'server.faulted': { title: 'Requests faulted', unit: 'requests' },
  'server.cancelled': { title: 'Requests cancelled', unit: 'requests' },
  'server.queuedAtEnd': { title: 'Queued at the end', unit: 'requests' },
  'server.inServiceAtEnd': { title: 'In service at the end', unit: 'requests' },
  'server.refused': { title: 'Requests refused by down backends', unit: 'requests' },
  'server.rejected': { title: 'Requests of bad input rejected', unit: 'requests' },
  'server.lost': { title: 'Requests lost by backends going down', unit: 'requests' },
  simulatedMs: { title: 'Measured simulated time', unit: 'ms' },
  successRate: { title: 'Success rate', unit: 'fraction of operations' },
  'fleet.crashes': { title: 'Backend crashes', unit: 'crashes' },
  'fleet.ejections': { title: 'Outlier ejections', unit: 'ejections' },
  'fleet.maxDown': { title: 'Most backends down at once', unit: 'backends' },
  truncated: { title: 'Truncated runs', unit: 'fraction of replications' },
  [MEMORY_CEILING_METRIC]: { title: 'Runs stopped at the memory ceiling', unit: 'runs (present only in those)' },
};

const STATS: Record<string, string> = { mean: 'Mean', p50: 'p50', p90: 'p90', p99: 'p99', p999: 'p99.9', max: 'Maximum' };

/** A bin width of a metric's name (`10`, in ms) as people read it: `10 ms`, `1 s`. */
function binText(ms: string | undefined): string {
  return formatDuration(Number(ms));
}

/** Title and unit of a count or time. */
function counted(title: string, unit: string): Titled {
  return { title, unit };
}

/**
 * Patterns of the metric names that depend on the experiment (layers, bin widths, reasons), each
 * with what its name refers to in the scenario (`subjects`), if anything.
 */
const PATTERNS: Array<{ re: RegExp; info: (m: RegExpExecArray) => Titled; subjects?: (m: RegExpExecArray) => MetricSubject[] }> = [
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
        successRate: { title: `Success rate in window ${m[1]}`, unit: 'fraction of operations' },
        goodputPerSec: counted(`Goodput in window ${m[1]}`, 'operations/s'),
        recovered: { title: `Recovered by the end of window ${m[1]}`, unit: 'fraction of replications' },
        recoveryMs: counted(`Time from the start of window ${m[1]} until goodput kept up with demand`, 'ms (runs that got there)'),
      })[m[2] as string] as Titled,
    subjects: (m) => [{ kind: 'window', name: m[1] as string }],
  },
  // A service's lookaside caches (docs/experiments.md, "Caches").
  {
    re: /^services\.([^.]+)\.caches\.(.+)\.(lookups|hits|hitRatio|coalesced|fills|lateSuccesses)$/,
    info: (m) =>
      ({
        lookups: counted(`Lookups in cache ${m[2]} of ${m[1]}`, 'lookups'),
        hits: counted(`Hits in cache ${m[2]} of ${m[1]}`, 'lookups'),
        hitRatio: { title: `Hit ratio of cache ${m[2]} of ${m[1]}`, unit: 'hits / lookups' },
        coalesced: counted(`Coalesced misses in cache ${m[2]} of ${m[1]}`, 'lookups'),
        fills: counted(`Fills of cache ${m[2]} of ${m[1]}`, 'entries'),
        lateSuccesses: counted(`Successes too late to fill cache ${m[2]} of ${m[1]}`, 'calls'),
      })[m[3] as string] as Titled,
    subjects: (m) => [
      { kind: 'service', name: m[1] as string },
      { kind: 'cache', service: m[1] as string, name: m[2] as string },
    ],
  },
  // The graph's shared cache tiers (docs/experiments.md, "Caches").
  {
    re: /^caches\.(.+)\.(lookups|hits|hitRatio|coalesced|fills|lateSuccesses)$/,
    info: (m) =>
      ({
        lookups: counted(`Lookups in shared cache ${m[1]}`, 'lookups'),
        hits: counted(`Hits in shared cache ${m[1]}`, 'lookups'),
        hitRatio: { title: `Hit ratio of shared cache ${m[1]}`, unit: 'hits / lookups' },
        coalesced: counted(`Coalesced misses in shared cache ${m[1]}`, 'lookups'),
        fills: counted(`Fills of shared cache ${m[1]}`, 'entries'),
        lateSuccesses: counted(`Successes too late to fill shared cache ${m[1]}`, 'calls'),
      })[m[2] as string] as Titled,
    subjects: (m) => [{ kind: 'sharedCache', name: m[1] as string }],
  },
  { re: /^fleet\.(.+)\.crashes$/, info: (m) => counted(`Backend crashes in cluster ${m[1]}`, 'crashes'), subjects: (m) => [{ kind: 'cluster', name: m[1] as string }] },
  { re: /^fleet\.(.+)\.served$/, info: (m) => counted(`Requests served by cluster ${m[1]}`, 'requests'), subjects: (m) => [{ kind: 'cluster', name: m[1] as string }] },
  // Service graphs (docs/experiments.md, "Service graphs"): edges, services, workloads and the cascade timeline.
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
      return { title: `${inner.title} of workload ${m[1]}`, unit: inner.unit };
    },
    subjects: (m) => [{ kind: 'workload', name: m[1] as string }],
  },
];

const CASCADE_TITLES: Record<string, string> = { trouble: 'First in trouble:', crashed: 'First crash:', recovered: 'Recovered:' };

function edgeInfo(edge: string, field: string, of: string): Titled {
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

function serviceInfo(service: string, field: string): Titled {
  if (field === 'utilization') return { ...(FIXED['server.utilization'] as Titled), title: `Utilisation of ${service}` };
  if (field === 'refusedInFlight') return counted(`Refused by ${service} at maxInFlight`, 'requests');
  if (field === 'crashes') return counted(`Backend crashes of ${service}`, 'crashes');
  if (field === 'first' || field === 'retries' || field === 'arrivals') return counted(`${field === 'first' ? 'First tries' : field === 'retries' ? 'Retries' : 'Arrivals'} at ${service}`, 'requests');
  const server = FIXED[`server.${field}`] as Titled;
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
  'caches.<cache>.<lookups|hits|hitRatio|coalesced|fills|lateSuccesses>',
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

/** Title, unit and range of a metric (an unknown name is its own title, without unit, and may take anything). */
export function metricInfo(name: string): MetricInfo {
  const fixed = FIXED[name];
  if (fixed) return { ...fixed, range: metricRange(name) };
  for (const p of PATTERNS) {
    const m = p.re.exec(name);
    if (m) return { ...p.info(m), range: metricRange(name) };
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

/**
 * A layer selector's axis (`layers[sdk].policy.maxAttempts`) read as one layer's field
 * (`stack.0.policy.maxAttempts`), with the layers it names in words (`layer sdk`, `layers app, client
 * of services.frontend`, `every layer`); null for any other path.
 */
function selectorAxis(path: string): { field: string; layers: string } | null {
  if (!isLayerSelector(path)) return null;
  const selector = parseLayerSelector(path);
  if (typeof selector === 'string' || selector.rest.length === 0) return null;
  const names = selector.names === null ? 'every layer' : `${selector.names.length === 1 ? 'layer' : 'layers'} ${selector.names.join(', ')}`;
  const scope = selector.scope.length === 0 ? '' : ` of ${selector.scope.join('.')}`;
  return { field: ['stack', 0, ...selector.rest].join('.'), layers: `${names}${scope}` };
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
  const selector = selectorAxis(path);
  if (selector !== null) return paramUnit(selector.field);
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

/** Whether two units measure the same quantity (`/s` and `operations/s` both count per second); two fields without a unit may too. */
function sameQuantity(a: string, b: string): boolean {
  if (a === '' || b === '') return true;
  return a === b || (a.endsWith('/s') && b.endsWith('/s'));
}

/**
 * A field inside another, untitled, in words: a part of the same quantity is named after its
 * parent (`Service time mean`; `Arrival rate` for a rate's own `ratePerSec`, not `Arrival rate
 * rate`); a field of another quantity (a duration inside a rate schedule) is not the parent's (a
 * rate has no duration) and is named after the kinds of schedule that have it (`Spike duration`);
 * a field whose name says its kind keeps it (`Spike rate`).
 */
function nestedName(parentTitle: string, name: string, kinds: readonly string[], same: boolean): string {
  const lower = name.toLowerCase();
  // A name that already says its kind (`Spike rate` of a spike) needs nothing more.
  if (kinds.length === 1 && lower.startsWith(`${kinds[0]} `)) return name;
  if (!same && kinds.length > 0) {
    const k = kinds.join(' or ');
    return `${k.charAt(0).toUpperCase()}${k.slice(1)} ${lower}`;
  }
  if (parentTitle.toLowerCase().includes(lower)) return parentTitle;
  return `${parentTitle} ${lower}`;
}

/**
 * A swept parameter in words: its field's title from the schema's documentation (`concurrency`
 * -> Workers), else its name as words, and where it is (`Timer tick at layer 0`, `Backoff kind at
 * layer 1`, `Server workers`), never the raw path. A field inside another (a kind, a mode, a
 * distribution's parameter, a budget's ratio) is named after the field it belongs to as well
 * (`Backoff kind`, `Service time mean`, `Budget ratio`).
 */
export function paramLabel(path: string): string {
  const selector = selectorAxis(path);
  if (selector !== null) return `${paramLabel(selector.field).replace(/ at layer 0$/, '')} at ${selector.layers}`;
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
    else if (docs !== null && !CONTAINERS.has(segs[parent] ?? '')) name = nestedName(title(parent), name, docs[i]?.kinds ?? [], sameQuantity(paramUnit(path), paramUnit(segs.slice(0, parent + 1).join('.'))));
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
    .map((e) => `${paramLabel(e.name)} = ${valueInWords(e.name, e.value)}`)
    .join(', ');
}

/**
 * One value of the parameter `name` (as `formatValue` shows it) with its unit where its label does
 * not already say it: `1250 operations/s`, `3 s` (a duration in the unit that reads best), `2x`, `2`.
 */
export function valueInWords(name: string, value: string): string {
  const unit = paramUnit(name);
  const numeric = /^-?[0-9.e+]+$/.test(value);
  if (numeric && unit === 'ms') return formatSetDuration(Number(value));
  const shown = unit && numeric && !paramLabel(name).toLowerCase().includes(unit.toLowerCase());
  if (!shown || isFraction(unit)) return value;
  return unit === 'x' ? `${value}x` : `${value} ${unit}`;
}
