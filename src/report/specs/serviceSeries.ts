import type { ServiceSeries } from '../../model/Measurements.js';
import { PALETTE } from '../colors.js';
import type { TriggerWindow } from '../triggers.js';
import type { VlSpec } from '../types.js';
import { legendOpacity, legendParam, topLevel, WIDTH } from './common.js';

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

/**
 * Per-service series of one run (a cell's replication 0), one line per service in each panel:
 * utilisation (services with a finite number of workers), error rate (failed answers over
 * answers, in bins with answers) and arrivals per second, first tries solid and retries dashed;
 * trigger windows shaded. The cascade timeline reads the same utilisation and error rate (per 1 s).
 */
export function serviceSeriesSpec(input: { services: readonly ServiceSeriesRun[]; binMs: number; windows: readonly TriggerWindow[] }): VlSpec {
  const { services, binMs } = input;
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
