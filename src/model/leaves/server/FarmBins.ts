import { BinnedSeries, MAX_SERIES_BINS, TimeWeightedSeries } from '../../../metrics/index.js';

/** What a farm counts per bin ({@link FarmBins}), as indices of its series. */
export const FarmBin = {
  SERVED: 0,
  SHED: 1,
  DROPPED: 2,
  REFUSED: 3,
  FAULTED: 4,
  REJECTED: 5,
  LOST: 6,
  CRASHES: 7,
  /** Wasted work in ms, in the bin where the worker was freed. */
  WASTED: 8,
} as const;

/** The names of a farm's per-bin counts, in {@link FarmBin} order. */
export const FARM_BIN_NAMES = ['served', 'shed', 'dropped', 'refused', 'faulted', 'rejected', 'lost', 'crashes', 'wastedWorkMs'] as const;

/**
 * A fleet's counts per bin, summed over its backends, named as its totals are (`ServerTotals`):
 * requests served (a worker freed after serving them), refused by reason (`shed`: by shedding, the
 * adaptive limit or a full queue; `dropped`: expired or by CoDel; `refused`: their backend was
 * down; `faulted`: an injected fault; `rejected`: bad input; `lost`: their backend went down under
 * them), backends crashed, and the wasted work (ms) of the workers freed in the bin.
 */
export type FarmBinCounts = Record<(typeof FARM_BIN_NAMES)[number], number[]>;

/**
 * A farm's counters per time bin, summed over its backends: what {@link FarmStats} counts in total
 * (served, the refusals by reason, crashes, wasted work; {@link FarmBin}), binned at the moment each
 * happened, and the time-weighted means of its workers available (the capacity schedule applied)
 * and, when the farm's own busy series is of another width, of its busy workers. Only a service of a
 * graph keeps them (`LeafContext.binCounts`); t >= 0 only (BinnedSeries ignores earlier times).
 */
export class FarmBins {
  /** Indexed by {@link FarmBin}. */
  readonly counts: BinnedSeries[];
  readonly workers: TimeWeightedSeries;
  /** Busy workers (null: the farm's own busy series has this width). */
  readonly busy: TimeWeightedSeries | null;

  constructor(
    readonly binMs: number,
    startMs: number,
    workers: number,
    ownBusy: boolean,
  ) {
    this.counts = FARM_BIN_NAMES.map(() => new BinnedSeries(binMs));
    this.workers = new TimeWeightedSeries(binMs, MAX_SERIES_BINS, startMs, workers);
    this.busy = ownBusy ? new TimeWeightedSeries(binMs, MAX_SERIES_BINS, startMs, 0) : null;
  }

  /** n more of `kind` ({@link FarmBin}) at t. */
  add(kind: number, t: number, n: number): void {
    (this.counts[kind] as BinnedSeries).add(t, n);
  }

  finish(endMs: number): void {
    this.workers.finish(endMs);
    this.busy?.finish(endMs);
  }

  /** The counts over `bins` bins. */
  toCounts(bins: number): FarmBinCounts {
    const out = {} as FarmBinCounts;
    FARM_BIN_NAMES.forEach((name, k) => (out[name] = (this.counts[k] as BinnedSeries).toArray(bins)));
    return out;
  }
}
