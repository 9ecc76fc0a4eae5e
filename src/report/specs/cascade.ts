import type { CascadeEvent } from '../../metrics/cascadeTimeline.js';
import type { VlSpec } from '../types.js';
import { textWidth, topLevel, WIDTH } from './common.js';

/** One run's cascade timeline, labelled, with when its run ended. */
export interface CascadeRun {
  label: string;
  events: readonly CascadeEvent[];
  endMs: number;
}

const ROW = 18;
const STATUS_COLORS = { recovered: '#f2a33a', 'in trouble at the end': '#c0392b' } as const;

/**
 * The cascade timelines of several runs (each cell's replication 0), one row per (run, service)
 * that got in trouble, in the order of the timeline: a bar from its first trouble to its recovery
 * (orange), or to the end of the run when it did not recover (red), and a black tick where a backend
 * of it first crashed. Services that never got in trouble have no row.
 */
export function cascadeSpec(input: { runs: readonly CascadeRun[] }): VlSpec {
  const bars: Array<Record<string, unknown>> = [];
  const crashes: Array<Record<string, unknown>> = [];
  for (const run of input.runs) {
    for (const e of run.events) {
      if (e.event !== 'trouble') continue;
      const rec = run.events.find((x) => x.service === e.service && x.event === 'recovered');
      const row = `${run.label}: ${e.service}`;
      bars.push({
        row,
        run: run.label,
        service: e.service,
        from: e.atMs / 1000,
        to: (rec?.atMs ?? run.endMs) / 1000,
        status: rec ? 'recovered' : 'in trouble at the end',
      });
    }
    for (const e of run.events) if (e.event === 'crashed') crashes.push({ row: `${run.label}: ${e.service}`, run: run.label, service: e.service, at: e.atMs / 1000 });
  }
  const order = bars.map((b) => b.row as string);
  const labelWidth = Math.max(60, ...order.map((r) => textWidth(r)));
  const y = { field: 'row', type: 'nominal', title: null, sort: order, axis: { labelLimit: Math.ceil(labelWidth) + 8 } };
  return {
    ...topLevel('Cascade timeline: for each run and service, from its first trouble to its recovery.'),
    width: WIDTH,
    height: Math.max(ROW, order.length * ROW),
    layer: [
      {
        data: { values: bars },
        mark: { type: 'bar', height: ROW - 6 },
        encoding: {
          y,
          x: { field: 'from', type: 'quantitative', title: 'Time (s)' },
          x2: { field: 'to' },
          color: { field: 'status', type: 'nominal', title: 'Status', scale: { domain: Object.keys(STATUS_COLORS), range: Object.values(STATUS_COLORS) } },
          tooltip: [
            { field: 'run', type: 'nominal', title: 'Run' },
            { field: 'service', type: 'nominal', title: 'Service' },
            { field: 'from', type: 'quantitative', title: 'First in trouble (s)' },
            { field: 'to', type: 'quantitative', title: 'Recovered, or end of run (s)' },
            { field: 'status', type: 'nominal', title: 'Status' },
          ],
        },
      },
      ...(crashes.length > 0
        ? [
            {
              data: { values: crashes },
              mark: { type: 'tick', color: 'black', thickness: 2 },
              encoding: { y, x: { field: 'at', type: 'quantitative' }, tooltip: [{ field: 'service', type: 'nominal', title: 'Crashed' }, { field: 'at', type: 'quantitative', title: 'First crash (s)' }] },
            },
          ]
        : []),
    ],
  };
}
