import { deriveSeed } from '../engine/random.js';
import { canonicalJson } from './canonicalJson.js';

/**
 * The seed of one replication of one cell: derived from (master seed, part, canonical JSON of the
 * cell's parameters, replication index) and deliberately not from the variant, so that the
 * variants of a sweep point run on the same random arrivals (common random numbers, docs/experiments.md,
 * "Experiment files"), which lowers the variance of their differences. Adding a cell to a sweep leaves
 * every other cell's seeds unchanged.
 */
export function replicationSeed(masterSeed: number, part: string, params: Record<string, unknown>, replication: number): number {
  return deriveSeed(masterSeed, 'replication', part, canonicalJson(params), replication);
}
