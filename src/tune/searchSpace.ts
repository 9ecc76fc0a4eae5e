import type { Uniform } from '../engine/random.js';
import { canonicalJson, type TuneDimension } from '../experiment/index.js';

/** One parameter of a search space: its dotted path (relative to the scenario) and its range. */
export interface SpaceDimension {
  path: string;
  dimension: TuneDimension;
  /**
   * The layers it sets, by full path in the (first) part's scenario: every layer a tied selector
   * matches, the one layer of a plain path or of a `free` selector's expansion; none outside the stacks.
   */
  layers?: string[];
}

/** A point of a search space: one value per dimension, in the space's order. */
export type SpacePoint = unknown[];

/** Significant digits kept of a drawn continuous value (readable configurations and flags). */
const SIGNIFICANT_DIGITS = 4;
/** Refinement steps: a log range moves x or / this factor, a linear range by this share of its width. */
export const LOG_STEP = 1.25;
export const LINEAR_STEP = 0.1;

function round(x: number): number {
  return Number(x.toPrecision(SIGNIFICANT_DIGITS));
}

/** Number of values of a discrete dimension (integers, choices); Infinity for a continuous one. */
export function dimensionSize(d: TuneDimension): number {
  if (d.kind === 'int') return d.max - d.min + 1;
  if (d.kind === 'choice') return d.values.length;
  return d.min === d.max ? 1 : Infinity;
}

/** Number of points of a space (Infinity when a dimension is continuous). */
export function spaceSize(space: readonly SpaceDimension[]): number {
  return space.reduce((n, s) => n * dimensionSize(s.dimension), 1);
}

/**
 * The value at position u in [0, 1) of a dimension: an integer or a choice is entry floor(u x k)
 * of its k values; a linear range min + u (max - min); a log range min (max/min)^u; continuous
 * values are kept to 4 significant digits (then clipped to the range).
 */
export function valueAt(d: TuneDimension, u: number): unknown {
  switch (d.kind) {
    case 'int':
      return d.min + Math.min(d.max - d.min, Math.floor(u * (d.max - d.min + 1)));
    case 'choice':
      return d.values[Math.min(d.values.length - 1, Math.floor(u * d.values.length))];
    case 'linear':
      return clip(round(d.min + u * (d.max - d.min)), d.min, d.max);
    case 'log':
      return clip(round(d.min * Math.pow(d.max / d.min, u)), d.min, d.max);
  }
}

function clip(x: number, min: number, max: number): number {
  return Math.min(max, Math.max(min, x));
}

/**
 * A Latin hypercube of n points (McKay, Beckman & Conover 1979, "A comparison of three methods
 * for selecting values of input variables in the analysis of output from a computer code",
 * Technometrics 21(2)): each dimension's [0, 1) is cut into n equal strata, each stratum is used
 * by exactly one point (a random permutation per dimension), and the point lies uniformly inside
 * it. Draws come from `random` in a fixed order: per dimension, a Fisher-Yates shuffle, then one
 * offset per point.
 */
export function latinHypercube(space: readonly SpaceDimension[], n: number, random: Uniform): SpacePoint[] {
  const us: number[][] = space.map(() => {
    const perm = Array.from({ length: n }, (_, i) => i);
    for (let i = n - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [perm[i], perm[j]] = [perm[j] as number, perm[i] as number];
    }
    return perm.map((stratum) => (stratum + random()) / n);
  });
  return Array.from({ length: n }, (_, i) => space.map((s, d) => valueAt(s.dimension, (us[d] as number[])[i] as number)));
}

/** A uniformly random point (to replace one that failed validation). */
export function randomPoint(space: readonly SpaceDimension[], random: Uniform): SpacePoint {
  return space.map((s) => valueAt(s.dimension, random()));
}

/** Every value of a discrete dimension in order. */
function values(d: TuneDimension): unknown[] {
  if (d.kind === 'int') return Array.from({ length: d.max - d.min + 1 }, (_, i) => d.min + i);
  if (d.kind === 'choice') return [...d.values];
  return [d.min];
}

/** Every point of a finite space, the first dimension slowest (as a sweep grid). */
export function allPoints(space: readonly SpaceDimension[]): SpacePoint[] {
  let points: SpacePoint[] = [[]];
  for (const s of space) points = points.flatMap((p) => values(s.dimension).map((v) => [...p, v]));
  return points;
}

/**
 * The neighbours of a point that change one parameter: integers +-1, choices to the adjacent
 * entries in listed order, log ranges x or / 1.25, linear ranges +-10% of the range's width,
 * clipped to the range (a step that the clip brings back to the same value is no neighbour).
 * In order: dimension by dimension, the step down before the step up.
 */
export function neighbours(space: readonly SpaceDimension[], point: SpacePoint): SpacePoint[] {
  const out: SpacePoint[] = [];
  space.forEach((s, i) => {
    const d = s.dimension;
    const v = point[i];
    let steps: unknown[];
    if (d.kind === 'int') steps = [(v as number) - 1, (v as number) + 1].filter((x) => x >= d.min && x <= d.max);
    else if (d.kind === 'choice') {
      const at = d.values.findIndex((c) => canonicalJson(c) === canonicalJson(v));
      steps = [d.values[at - 1], d.values[at + 1]].filter((_, k) => (k === 0 ? at - 1 >= 0 : at + 1 < d.values.length));
    } else if (d.kind === 'log') steps = [round((v as number) / LOG_STEP), round((v as number) * LOG_STEP)].map((x) => clip(x, d.min, d.max));
    else steps = [round((v as number) - LINEAR_STEP * (d.max - d.min)), round((v as number) + LINEAR_STEP * (d.max - d.min))].map((x) => clip(x, d.min, d.max));
    const seen = new Set<string>([canonicalJson(v)]);
    for (const step of steps) {
      const key = canonicalJson(step);
      if (seen.has(key)) continue;
      seen.add(key);
      const next = [...point];
      next[i] = step;
      out.push(next);
    }
  });
  return out;
}

/** The identity of a point (canonical JSON of its values). */
export function pointKey(point: SpacePoint): string {
  return canonicalJson(point);
}
