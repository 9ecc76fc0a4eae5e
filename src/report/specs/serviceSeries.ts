import type { ServiceSeries } from '../../model/Measurements.js';
import { PALETTE } from '../colors.js';
import type { TriggerWindow } from '../triggers.js';
import type { VlSpec } from '../types.js';
import { legendOpacity, legendParam, MAX_CHART_BINS, topLevel, WIDTH } from './common.js';

/** One service's series of one run, as the chart draws it. */
export interface ServiceSeriesRun {
  service: string;
  timeSeries: ServiceSeries;
}

const PANEL_HEIGHT = 120;

/** The panels of the per-service chart, top to bottom. */
export const SERVICE_PANELS = ['utilization', 'errorRate', 'arrivals'] as const;
const PANEL_TITLES: Record<(typeof SERVICE_PANELS)[number], string> = {
  utilization: 'Utilisation (busy workers / workers available)',
  errorRate: 'Error rate (failed answers / answers)',
  arrivals: 'Arrivals per second (dashed: retries)',
};

/** The sum of `a` over bins [from, to). */
function sum(a: readonly number[], from: number, to: number): number {
  let s = 0;
  for (let i = from; i < to; i++) s += a[i] ?? 0;
  return s;
}

/** The series the chart draws, every `factor` bins merged into one (the last with the bins left; arrivals scaled to a whole wider bin). */
function mergeBins(ts: ServiceSeries, factor: number): ServiceSeries {
  const n = ts.arrivalsFirst.length;
  const bins = Math.ceil(n / factor);
  const first: number[] = [];
  const retry: number[] = [];
  const answered: number[] = [];
  const failed: number[] = [];
  const utilization: number[] = [];
  for (let b = 0; b < bins; b++) {
    const from = b * factor;
    const to = Math.min(n, from + factor);
    // The last bin may hold fewer: its counts are scaled to a whole wider bin, as a rate per second would be.
    const scale = factor / (to - from);
    first.push(sum(ts.arrivalsFirst, from, to) * scale);
    retry.push(sum(ts.arrivalsRetry, from, to) * scale);
    answered.push(sum(ts.answered, from, to));
    failed.push(sum(ts.failed, from, to));
    if (ts.utilization) utilization.push(sum(ts.utilization, from, to) / (to - from));
  }
  return { ...ts, arrivalsFirst: first, arrivalsRetry: retry, answered, failed, ...(ts.utilization ? { utilization } : {}) };
}

/**
 * Per-service series of one run (a cell's replication 0), one line per service in each panel:
 * utilisation (services with a finite number of workers), error rate (failed answers over
 * answers, in bins with answers) and arrivals per second, first tries solid and retries dashed;
 * trigger windows shaded. The cascade timeline reads the same utilisation and error rate (per 1 s).
 * A run of more than `maxBins` bins (default {@link MAX_CHART_BINS}) is drawn over wider bins, each
 * merging as many of its bins: utilisation averaged, error rate as the merged failures over the
 * merged answers, arrivals per second of the wider bin.
 */
export function serviceSeriesSpec(input: { services: readonly ServiceSeriesRun[]; binMs: number; windows: readonly TriggerWindow[]; maxBins?: number }): VlSpec {
  const longest = Math.max(0, ...input.services.map((s) => s.timeSeries.arrivalsFirst.length));
  const factor = Math.max(1, Math.ceil(longest / (input.maxBins ?? MAX_CHART_BINS)));
  const services = factor === 1 ? input.services : input.services.map((s) => ({ service: s.service, timeSeries: mergeBins(s.timeSeries, factor) }));
  const binMs = input.binMs * factor;
  const names = services.map((s) => s.service);
  const color = { field: 'service', type: 'nominal', title: 'Service', scale: { domain: names, range: names.map((_, i) => PALETTE[i % PALETTE.length] as string) } };
  const perSec = 1000 / binMs;
  const rows: Record<(typeof SERVICE_PANELS)[number], Array<Record<string, unknown>>> = { utilization: [], errorRate: [], arrivals: [] };
  for (const s of services) {
    const ts = s.timeSeries;
    const n = ts.arrivalsFirst.length;
    for (let i = 0; i < n; i++) {
      const t = (i * binMs) / 1000;
      if (ts.utilization) rows.utilization.push({ service: s.service, t, value: ts.utilization[i] ?? 0 });
      const answered = ts.answered[i] ?? 0;
      if (answered > 0) rows.errorRate.push({ service: s.service, t, value: (ts.failed[i] ?? 0) / answered });
      rows.arrivals.push({ service: s.service, t, value: (ts.arrivalsFirst[i] ?? 0) * perSec, kind: 'first tries' });
      rows.arrivals.push({ service: s.service, t, value: (ts.arrivalsRetry[i] ?? 0) * perSec, kind: 'retries' });
    }
  }
  const endS = Math.max(0, ...services.map((s) => (s.timeSeries.arrivalsFirst.length * binMs) / 1000));
  const windows = input.windows.map((w) => ({ from: w.fromMs / 1000, to: w.toMs === null ? endS : w.toMs / 1000, label: w.label }));
  const views = SERVICE_PANELS.filter((p) => rows[p].length > 0).map((p, k) => {
    const line: VlSpec = {
      mark: { type: 'line', interpolate: 'step-after', strokeWidth: 1.5, clip: true },
      encoding: {
        x: { field: 't', type: 'quantitative', title: 'Time (s)' },
        y: { field: 'value', type: 'quantitative', title: PANEL_TITLES[p], ...(p === 'arrivals' ? {} : { scale: { domain: [0, 1] } }) },
        color,
        ...(p === 'arrivals' ? { strokeDash: { field: 'kind', type: 'nominal', title: 'Arrivals', scale: { domain: ['first tries', 'retries'], range: [[1, 0], [4, 3]] } }, detail: { field: 'kind' } } : {}),
        opacity: legendOpacity(),
        tooltip: [
          { field: 'service', type: 'nominal', title: 'Service' },
          { field: 't', type: 'quantitative', title: 'Bin start (s)' },
          { field: 'value', type: 'quantitative', title: PANEL_TITLES[p], format: '.3~f' },
        ],
      },
      ...(k === 0 ? { params: [legendParam('service')] } : {}),
    };
    const layers: VlSpec[] = [];
    if (windows.length > 0) {
      layers.push({ data: { values: windows }, mark: { type: 'rect', color: '#888888', opacity: 0.15 }, encoding: { x: { field: 'from', type: 'quantitative' }, x2: { field: 'to' } } });
    }
    layers.push({ data: { values: rows[p] }, ...line });
    return { width: WIDTH, height: PANEL_HEIGHT, layer: layers };
  });
  return {
    ...topLevel('Per-service series of one run: utilisation, error rate and arrivals per service.'),
    vconcat: views,
    resolve: { scale: { color: 'shared', y: 'independent' } },
  };
}
