/** Streaming metric primitives: log-bucketed histograms, binned and time-weighted series, clustering statistics. */
export { LogHistogram, HISTOGRAM_ZERO_LIMIT } from './LogHistogram.js';
export type { HistogramSummary } from './LogHistogram.js';
export { StreamingClustering } from './StreamingClustering.js';
export type { ClusteringResult } from './StreamingClustering.js';
export { BinnedSeries, MAX_SERIES_BINS } from './BinnedSeries.js';
export { TimeWeightedSeries } from './TimeWeightedSeries.js';
export { metricStats } from './metricStats.js';
export type { MetricStats } from './metricStats.js';
export { normalQuantile, studentTQuantile } from './studentT.js';
export { cascadeTimeline, inTrouble, TROUBLE_ERROR_RATE, TROUBLE_RECOVERY_MS, TROUBLE_UTILISATION } from './cascadeTimeline.js';
export type { CascadeEvent, ServiceBins } from './cascadeTimeline.js';
