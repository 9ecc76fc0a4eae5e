/**
 * Streaming metric primitives: log-bucketed histograms, binned and time-weighted series, clustering
 * statistics: what a simulation run measures with, and nothing else. The statistics over many runs
 * (`metricStats.js`, `studentT.js`, which load simple-statistics) and the cascade timeline
 * (`cascadeTimeline.js`) are imported from their own modules, so that a run does not load them.
 */
export { LogHistogram, HISTOGRAM_ZERO_LIMIT } from './LogHistogram.js';
export type { HistogramSummary } from './LogHistogram.js';
export { StreamingClustering } from './StreamingClustering.js';
export type { ClusteringResult } from './StreamingClustering.js';
export { BinnedSeries, MAX_SERIES_BINS } from './BinnedSeries.js';
export { TimeWeightedSeries } from './TimeWeightedSeries.js';
