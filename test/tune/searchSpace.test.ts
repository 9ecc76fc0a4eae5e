import { describe, expect, it } from 'vitest';
import { stream } from '../../src/engine/random.js';
import { allPoints, latinHypercube, neighbours, spaceSize, valueAt, type SpaceDimension } from '../../src/tune/searchSpace.js';

const int = (min: number, max: number) => ({ kind: 'int', min, max }) as const;
const log = (min: number, max: number) => ({ kind: 'log', min, max }) as const;
const linear = (min: number, max: number) => ({ kind: 'linear', min, max }) as const;
const choice = (...values: unknown[]) => ({ kind: 'choice', values }) as const;

describe('search space', () => {
  it('maps u to entry floor(u x k) of an integer or a choice dimension', () => {
    expect([0, 0.24, 0.25, 0.5, 0.99].map((u) => valueAt(int(1, 4), u))).toEqual([1, 1, 2, 3, 4]);
    expect([0, 0.34, 0.67, 0.999].map((u) => valueAt(choice('a', 'b', 'c'), u))).toEqual(['a', 'b', 'c', 'c']);
  });

  it('maps u linearly or on a log scale, to 4 significant digits', () => {
    expect(valueAt(linear(0, 10), 0.123456)).toBe(1.235);
    expect(valueAt(log(10, 1000), 0.5)).toBe(100);
    expect(valueAt(log(10, 1000), 0.25)).toBe(31.62);
  });

  it('uses each of the n strata of every dimension exactly once in a Latin hypercube', () => {
    const space: SpaceDimension[] = [
      { path: 'a', dimension: linear(0, 1) },
      { path: 'b', dimension: int(0, 9) },
    ];
    const points = latinHypercube(space, 10, stream(7, 'test'));
    expect(points.map((p) => Math.floor((p[0] as number) * 10)).sort((x, y) => x - y)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(points.map((p) => p[1]).sort((x, y) => (x as number) - (y as number))).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(latinHypercube(space, 10, stream(7, 'test'))).toEqual(points);
  });

  it('counts and lists a finite space, the first dimension slowest', () => {
    const space: SpaceDimension[] = [
      { path: 'a', dimension: int(1, 2) },
      { path: 'b', dimension: choice('x', 'y', 'z') },
    ];
    expect(spaceSize(space)).toBe(6);
    expect(allPoints(space)).toEqual([[1, 'x'], [1, 'y'], [1, 'z'], [2, 'x'], [2, 'y'], [2, 'z']]);
    expect(spaceSize([{ path: 'c', dimension: log(1, 2) }])).toBe(Infinity);
  });

  it('steps one parameter at a time: integers +-1, adjacent choices, x or / 1.25, +-10% of the width, clipped', () => {
    const space: SpaceDimension[] = [
      { path: 'n', dimension: int(1, 5) },
      { path: 'k', dimension: choice('none', 'exponential', 'full-jitter') },
      { path: 'base', dimension: log(10, 1000) },
      { path: 'x', dimension: linear(0, 50) },
    ];
    expect(neighbours(space, [1, 'exponential', 100, 48])).toEqual([
      [2, 'exponential', 100, 48],
      [1, 'none', 100, 48],
      [1, 'full-jitter', 100, 48],
      [1, 'exponential', 80, 48],
      [1, 'exponential', 125, 48],
      [1, 'exponential', 100, 43],
      [1, 'exponential', 100, 50],
    ]);
    // At the ends of the ranges a step that the clip brings back is no neighbour.
    expect(neighbours(space, [5, 'full-jitter', 1000, 50])).toEqual([
      [4, 'full-jitter', 1000, 50],
      [5, 'exponential', 1000, 50],
      [5, 'full-jitter', 800, 50],
      [5, 'full-jitter', 1000, 45],
    ]);
  });
});
