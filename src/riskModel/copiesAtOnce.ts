import { DEFAULT_RISK_METHOD, type RiskSection } from '../experiment/riskSchema.js';
import { DEFAULT_PARTICLES } from '../risk/riskOptions.js';

/**
 * The branch points an adaptive particle holds at once, as estimated before a cell runs. Adaptive
 * splitting (src/risk/adaptiveSplitting.ts) keeps a snapshot each time a particle's score rises by
 * `importanceStep`, while the particle may still be branched there: one per particle and step it
 * climbed above the current level. How far particles climb is the scenario's: measured at the peak
 * of each cell of the quick plan of experiments/collapse-risk.json (10 particles), it was 4.5 to 26
 * a particle in its cache part and 16 to 105 in its server part, 16 the median of the 12 cells.
 */
export const ADAPTIVE_SNAPSHOTS_PER_PARTICLE = 16;

/** The copies at once, and the words that say what drives their number (for the memory messages). */
export interface CopiesAtOnce {
  copies: number;
  /** The particles that drive the number (null for plain Monte Carlo, which holds one run whatever its runs). */
  particles: number | null;
  /** E.g. `adaptive splitting with 30 particles (about 16 branch points each) and the trajectory running`. */
  drivenBy: string;
}

/**
 * Copies of a run that one cell's estimate holds at once, by the estimator its risk section names
 * (src/risk): plain Monte Carlo runs one trajectory at a time and keeps no snapshot (1);
 * fixed-level splitting keeps the entries of the level its trajectories reached (at most
 * `particles` snapshots) while it collects the next level's (as many again) from the trajectory
 * running (2 x particles + 1); adaptive splitting keeps its particles' branch points
 * (`particles` x {@link ADAPTIVE_SNAPSHOTS_PER_PARTICLE}, an estimate) and the trajectory running.
 * Each copy is a whole run's state: `retrystorm risk` multiplies a run's memory by this number, and
 * holds each copy to its share of the memory limit.
 */
export function riskCopiesAtOnce(risk: RiskSection): CopiesAtOnce {
  const method = risk.method ?? DEFAULT_RISK_METHOD;
  const particles = risk.particles ?? DEFAULT_PARTICLES;
  switch (method) {
    case 'monte-carlo':
      return { copies: 1, particles: null, drivenBy: 'plain Monte Carlo, one trajectory at a time' };
    case 'fixed':
      return { copies: 2 * particles + 1, particles, drivenBy: `fixed-level splitting with ${particles} particles (trajectories per level: two levels' entries held at once) and the trajectory running` };
    case 'adaptive':
      return {
        copies: particles * ADAPTIVE_SNAPSHOTS_PER_PARTICLE + 1,
        particles,
        drivenBy: `adaptive splitting with ${particles} particles (about ${ADAPTIVE_SNAPSHOTS_PER_PARTICLE} branch points each, one per importance step a particle climbed) and the trajectory running`,
      };
  }
}
