/**
 * Streaming metric primitives: log-bucketed histograms, binned and time-weighted series, clustering
 * statistics, a graph's cascade timeline: what a simulation run measures with. The statistics over
 * many runs (`metricStats.js`, `studentT.js`, which load simple-statistics) are imported from their
 * own modules, so that a run does not load them.
 */
export { LogHistogram, HISTOGRAM_ZERO_LIMIT } from './LogHistogram.js';
export type { HistogramSummary } from './LogHistogram.js';
export { StreamingClustering } from './StreamingClustering.js';
export type { ClusteringResult } from './StreamingClustering.js';
export { BinnedSeries, MAX_SERIES_BINS } from './BinnedSeries.js';
export { TimeWeightedSeries } from './TimeWeightedSeries.js';
export { CASCADE_BIN_MS, cascadeTimeline, inTrouble, TROUBLE_ERROR_RATE, TROUBLE_RECOVERY_MS, TROUBLE_UTILISATION, utilisation } from './cascadeTimeline.js';
export type { CascadeEvent, ServiceBins } from './cascadeTimeline.js';
export { WindowTallies } from './WindowTallies.js';
export type { WindowTally } from './WindowTallies.js';
