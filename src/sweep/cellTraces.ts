import { replicationSeed, type Cell } from '../experiment/index.js';
import { Model } from '../model/Model.js';
import type { TraceEvent } from '../model/trace.js';
import { attr, otlpTraces, type OtlpTraces } from '../model/traceOtlp.js';

/** `run --traces otlp` keeps every N-th operation of a cell by default (`--trace-sample N`). */
export const DEFAULT_TRACE_SAMPLE = 100;

/** At most this many operations of a cell's workload are kept (the first sampled ones), so a long run's traces stay a few MB. */
export const MAX_TRACED_OPERATIONS = 100;

/** The output directory's folder of the traces, one file per cell. */
export const TRACES_DIR = 'traces';

/** The file of cell `index` (its position in the plan, from 0) in {@link TRACES_DIR}: named by the index only, never by a name from the experiment file. */
export function traceFileName(index: number): string {
  return `cell-${index}.otlp.json`;
}

/** Whether operation `op` (numbered from 0 in the order its workload starts operations) is kept with a sample of every `every`-th. */
export function sampledOperation(op: number, every: number): boolean {
  return op % every === 0 && op / every < MAX_TRACED_OPERATIONS;
}

/**
 * The OTLP/JSON traces of cell `index`'s replication 0 (the run a summary calls typical; the same
 * seed, so the same operations): the model is run again with its trace on (a traced run gives the
 * results of an untraced one), keeping the events of every `every`-th operation, at most
 * {@link MAX_TRACED_OPERATIONS}. Trace ids start with the cell's index and the replication's seed.
 * A graph with several workloads keys its operations across them (src/model/traceGraph.ts,
 * `workloadSink`): each workload's operations are sampled by their own number, up to the cap each.
 */
export function traceCell(cell: Cell, index: number, masterSeed: number, every: number): OtlpTraces {
  const seed = replicationSeed(masterSeed, cell.part, cell.params, 0);
  const events: TraceEvent[] = [];
  const workloads = cell.scenario.graph?.workloads?.length ?? 1;
  const keep = (e: TraceEvent) => {
    if (sampledOperation(Math.floor(e.op / workloads), every)) events.push(e);
  };
  new Model(cell.scenario, { seed, trace: keep, traceGraph: true }).run();
  const sc = cell.scenario;
  return otlpTraces(events, {
    layers: sc.stack.map((l) => l.name),
    workloadLayers: new Map(sc.graph?.workloads?.map((w) => [w.name, w.stack.map((l) => l.name)])),
    entryServices: [...new Set([...(sc.graph?.entries ?? []), ...(sc.graph?.workloads ?? []).flatMap((w) => w.entries)].map((e) => e.service))],
    traceIdPrefix: index,
    seed,
    resourceAttributes: [attr('retrystorm.cell', index), attr('retrystorm.part', cell.part), attr('retrystorm.variant', cell.variant)],
  });
}
