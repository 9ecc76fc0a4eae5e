import { stateless, stream, type Uniform } from '../engine/random.js';
import type { Dist } from './scenario.js';

/**
 * The stream given where the scenario never draws (building a named stream costs more than the
 * events of a small run, and skipping one leaves every other stream as it was). It holds no state:
 * a copy of a run's state shares it.
 */
export const notDrawn: Uniform = stateless(() => {
  throw new Error('internal: a random stream the scenario does not use was drawn from');
});

/** The named stream `name` of the master seed when `used`, else {@link notDrawn}. */
export function streamIf(used: boolean, seed: number, name: string): Uniform {
  return used ? stream(seed, name) : notDrawn;
}

/** The stream to sample `d` from: a constant never draws, so none is built for it. */
export function streamFor(d: Dist, seed: number, name: string): Uniform {
  return streamIf(d.dist !== 'constant', seed, name);
}
