import { metricStats, type MetricStats } from '../sweep/aggregate.js';
import type { ReplicationRecord } from '../sweep/runPlan.js';
import { pairedEquivalent, pairedGreater } from './pairedTests.js';
import { roundExperiment } from './roundExperiment.js';
import { CandidatePool, type Candidate } from './candidatePool.js';
import { TuneInputError } from './TuneInputError.js';
import { metricKey, type Constraint, type Objective, type TuneProblem } from './tuneProblem.js';

/** Replications of every candidate in round 0; each later round doubles them. */
export const FIRST_ROUND_REPLICATIONS = 4;
/** Relative equivalence margin when an objective has no `tolerance`: 1% of the leader's absolute mean. */
export const RELATIVE_MARGIN = 0.01;

export type { Candidate, CandidateOrigin } from './candidatePool.js';

/** What one round did. */
export interface RoundLog {
  index: number;
  replications: number;
  /** Candidates that entered it. */
  entered: string[];
  /** Runs it started (replications not done by earlier rounds). */
  runs: number;
  /** Runs started by the search up to and including this round. */
  totalRuns: number;
  leader: string | null;
  dropped: Array<{ id: string; reason: string }>;
  /** Candidates added by the local refinement after this round. */
  added: string[];
}

/** A round to run: every live candidate as a variant of an experiment, at `replications`. */
export interface RoundRequest {
  index: number;
  replications: number;
  /** The round as an experiment file's root object (a sweep that `retrystorm run` can run, shard and merge). */
  experiment: Record<string, unknown>;
  /** Runs it starts. */
  runs: number;
  /** Records made by the previous round for these candidates: done, not to be run again. */
  prior: ReplicationRecord[];
}

/** The records of every cell and replication of a round, or an interruption. */
export type RoundOutcome = { interrupted: true } | { interrupted: false; records: ReplicationRecord[] };

/** Runs the rounds (the caller owns the worker pool and the files). */
export type EvaluateRound = (request: RoundRequest) => Promise<RoundOutcome>;

/** Why the search stopped. */
export type StopReason = 'converged' | 'max-runs' | 'no-survivors';

/** The state of a search when it stopped. */
export interface TuneOutcome {
  interrupted: boolean;
  stopReason: StopReason | null;
  totalRuns: number;
  rounds: RoundLog[];
  candidates: Candidate[];
  /** The leader (one objective) or the front member best on the first objective; null if none is proven feasible. */
  recommended: string | null;
}

export { TuneInputError } from './TuneInputError.js';

/** Oriented so that smaller is better. */
function oriented(o: Objective, x: number): number {
  return o.goal === 'minimize' ? x : -x;
}

function orientedValues(o: Objective, values: readonly number[]): number[] {
  return values.map((x) => oriented(o, x));
}

/** Mean statistics of an objective of a candidate. */
export function objectiveStats(c: Candidate, i: number): MetricStats {
  return metricStats(c.objectiveValues[i] ?? []);
}

/** Mean statistics of a constraint's metric of a candidate. */
export function constraintStats(c: Candidate, i: number): MetricStats {
  return metricStats(c.constraintValues[i] ?? []);
}

/**
 * Feasibility by two-sided 95% Student-t intervals: proven feasible when each constraint's
 * interval lies wholly on the allowed side, proven infeasible when one lies wholly on the other.
 */
export function feasibilityOf(c: Candidate, constraints: readonly Constraint[]): Candidate['feasibility'] {
  let all = true;
  for (const [i, k] of constraints.entries()) {
    const s = constraintStats(c, i);
    if (s.n === 0) return 'unknown';
    const [lo, hi] = s.ci95;
    if ((k.min !== null && hi < k.min) || (k.max !== null && lo > k.max)) return 'infeasible';
    if (!((k.min === null || lo >= k.min) && (k.max === null || hi <= k.max))) all = false;
  }
  return all ? 'feasible' : 'unknown';
}

/** How far a candidate's constraint means are from meeting them (relative, summed): 0 when they all meet. */
export function violation(c: Candidate, constraints: readonly Constraint[]): number {
  let v = 0;
  for (const [i, k] of constraints.entries()) {
    const m = constraintStats(c, i).mean;
    if (!Number.isFinite(m)) return Infinity;
    if (k.min !== null && m < k.min) v += (k.min - m) / Math.max(Math.abs(k.min), 1e-12);
    if (k.max !== null && m > k.max) v += (m - k.max) / Math.max(Math.abs(k.max), 1e-12);
  }
  return v;
}

/** a is worse than b at 95% (paired, one-sided) on objective i. */
function worse(objectives: readonly Objective[], i: number, a: Candidate, b: Candidate): boolean {
  const o = objectives[i] as Objective;
  return pairedGreater(orientedValues(o, a.objectiveValues[i] ?? []), orientedValues(o, b.objectiveValues[i] ?? []));
}

/** b dominates a at 95%: a is worse on every objective (paired one-sided tests). */
function dominatedAt95(objectives: readonly Objective[], a: Candidate, b: Candidate): boolean {
  return objectives.every((_, i) => worse(objectives, i, a, b));
}

/** Non-dominated ranks by means (0 = the front), oriented so smaller is better. */
export function paretoRanks(objectives: readonly Objective[], cs: readonly Candidate[]): Map<string, number> {
  const means = cs.map((c) => objectives.map((o, i) => oriented(o, objectiveStats(c, i).mean)));
  const dominates = (a: number[], b: number[]) => a.every((x, i) => x <= (b[i] as number)) && a.some((x, i) => x < (b[i] as number));
  const ranks = new Map<string, number>();
  let left = cs.map((_, i) => i);
  for (let rank = 0; left.length > 0; rank++) {
    const front = left.filter((i) => !left.some((j) => j !== i && dominates(means[j] as number[], means[i] as number[])));
    for (const i of front) ranks.set((cs[i] as Candidate).id, rank);
    left = left.filter((i) => !front.includes(i));
  }
  return ranks;
}

/** Candidates best first: by mean (one objective) or by non-dominated rank, then the first objective's mean; ties in creation order. */
export function bestFirst(objectives: readonly Objective[], cs: readonly Candidate[], order: ReadonlyMap<string, number>): Candidate[] {
  const ranks = objectives.length > 1 ? paretoRanks(objectives, cs) : null;
  const first = objectives[0] as Objective;
  const score = (c: Candidate) => oriented(first, objectiveStats(c, 0).mean);
  return [...cs].sort((a, b) => {
    if (ranks) {
      const d = (ranks.get(a.id) as number) - (ranks.get(b.id) as number);
      if (d !== 0) return d;
    }
    const d = score(a) - score(b);
    if (d !== 0 && Number.isFinite(d)) return d;
    return (order.get(a.id) as number) - (order.get(b.id) as number);
  });
}

/** The equivalence margin of objective i against a leader: its tolerance, or 1% of the leader's absolute mean. */
export function margin(o: Objective, leader: Candidate, i: number): number {
  return o.tolerance ?? RELATIVE_MARGIN * Math.abs(objectiveStats(leader, i).mean);
}

/** Every other survivor is indistinguishable from the leader on objective i (TOST at 5%). */
export function indistinguishable(o: Objective, i: number, c: Candidate, leader: Candidate): boolean {
  return pairedEquivalent(c.objectiveValues[i] ?? [], leader.objectiveValues[i] ?? [], margin(o, leader, i));
}

/**
 * The search (DESIGN of `retrystorm tune`): round 0 is a seeded Latin hypercube of candidates (or
 * the whole space when it has at most that many points) plus the presets, 4 replications each;
 * every later round doubles the survivors' replications. After each round: feasibility by 95%
 * Student-t intervals of the constraints; the leader is the best mean among the proven feasible;
 * a candidate is dropped when proven infeasible or when a paired one-sided 95% test finds it worse
 * than the leader (two objectives: dominated at 95% by a proven-feasible survivor), and then the
 * best ceil(n/2) of the n that entered are kept, the leader always among them. After round 1, once, the neighbours of the best 3
 * survivors in the space join. From round 2, the search stops when every other survivor is
 * indistinguishable from the leader (two one-sided tests at 5%; two objectives: when every
 * survivor is proven feasible), or before a round that would pass `maxRuns`. Candidates share
 * their replication seeds (common random numbers), so comparisons are paired. Deterministic from
 * the seed; `evaluate` runs each round.
 */
export async function runTune(problem: TuneProblem, evaluate: EvaluateRound): Promise<TuneOutcome> {
  const pool = new CandidatePool(problem);
  pool.addRoundZero();
  const { candidates, order } = pool;
  if (candidates.length === 0) throw new TuneInputError(['tune.space: no point of the space is a valid scenario']);

  const rounds: RoundLog[] = [];
  let totalRuns = 0;
  let prior: ReplicationRecord[] = [];
  let stopReason: StopReason;
  const objectives = problem.objectives;

  for (let index = 0; ; index++) {
    const replications = FIRST_ROUND_REPLICATIONS * 2 ** index;
    const live = candidates.filter((c) => c.alive);
    const runs = live.reduce((n, c) => n + problem.parts.length * (replications - c.replications), 0);
    if (totalRuns + runs > problem.maxRuns) {
      if (index === 0) {
        throw new TuneInputError([`--max-runs ${problem.maxRuns} is below the ${runs} runs of round 0 (${live.length} candidates x ${problem.parts.length} part${problem.parts.length > 1 ? 's' : ''} x ${replications} replications)`]);
      }
      stopReason = 'max-runs';
      break;
    }
    const outcome = await evaluate({ index, replications, experiment: roundExperiment(problem, live, index, replications), runs, prior });
    if (outcome.interrupted) return { interrupted: true, stopReason: null, totalRuns, rounds, candidates, recommended: null };
    totalRuns += runs;
    const errored = absorb(problem, live, outcome.records, replications);
    const liveIds = new Set(live.map((c) => c.id));
    prior = outcome.records.filter((r) => liveIds.has(r.variant));

    const log: RoundLog = { index, replications, entered: live.map((c) => c.id), runs, totalRuns, leader: null, dropped: [], added: [] };
    const leader = judgeRound(problem, pool, live, errored, log);
    rounds.push(log);

    const survivors = candidates.filter((c) => c.alive);
    if (survivors.length === 0) {
      stopReason = 'no-survivors';
      break;
    }
    // Local refinement, once, after round 1.
    if (index === 1) log.added.push(...pool.addNeighbours(bestFirst(objectives, survivors, order)));
    if (index >= 2 && leader && converged(problem, survivors, leader)) {
      stopReason = 'converged';
      break;
    }
  }

  const recommended = candidates.filter((c) => c.alive && c.feasibility === 'feasible');
  return {
    interrupted: false,
    stopReason,
    totalRuns,
    rounds,
    candidates,
    recommended: bestFirst(objectives, recommended, order)[0]?.id ?? null,
  };
}

/**
 * What a round decides of the candidates that entered it (`log` records it): the errored are
 * dropped; feasibility by the constraints' intervals, the proven infeasible dropped; the leader
 * (best proven feasible); those worse than the leader (one objective) or dominated at 95% (two)
 * dropped; then halving keeps the best ceil(n/2), the leader always among them. Returns the leader
 * after halving (null when none is proven feasible).
 */
function judgeRound(problem: TuneProblem, pool: CandidatePool, live: readonly Candidate[], errored: ReadonlyMap<Candidate, string>, log: RoundLog): Candidate | null {
  const { objectives } = problem;
  const { candidates, order } = pool;
  const drop = (c: Candidate, reason: string) => {
    c.alive = false;
    c.dropped = { round: log.index, reason };
    log.dropped.push({ id: c.id, reason });
  };
  for (const [c, why] of errored) drop(c, `errored: ${why}`);
  for (const c of live) {
    if (!c.alive) continue;
    c.feasibility = feasibilityOf(c, problem.constraints);
    if (c.feasibility === 'infeasible') drop(c, 'proven infeasible');
  }
  const feasible = () => bestFirst(objectives, candidates.filter((c) => c.alive && c.feasibility === 'feasible'), order);
  const leader = feasible()[0] ?? null;
  if (leader) {
    if (objectives.length === 1) {
      for (const c of live) if (c.alive && c !== leader && c.feasibility === 'feasible' && worse(objectives, 0, c, leader)) drop(c, `worse than ${leader.id} (paired 95%)`);
    } else {
      const front = feasible();
      for (const c of live) {
        if (!c.alive || c.feasibility !== 'feasible') continue;
        const by = front.find((f) => f !== c && f.alive && dominatedAt95(objectives, c, f));
        if (by) drop(c, `dominated by ${by.id} (paired 95%)`);
      }
    }
  }
  // Halving keeps the best ceil(n/2) by mean, and never the leader out: a candidate of unknown
  // feasibility with a better mean must not push out the best one proven feasible.
  const keep = Math.ceil(live.length / 2);
  const ranked = bestFirst(objectives, live.filter((c) => c.alive), order);
  const kept = leader?.alive ? [leader, ...ranked.filter((c) => c !== leader).slice(0, keep - 1)] : ranked.slice(0, keep);
  for (const c of ranked) if (!kept.includes(c)) drop(c, 'halved');
  const now = feasible()[0] ?? null;
  log.leader = now?.id ?? null;
  return now;
}

/** Every other survivor is indistinguishable from the leader (one objective), or every survivor is proven feasible (two). */
function converged(problem: TuneProblem, survivors: readonly Candidate[], leader: Candidate): boolean {
  if (problem.objectives.length > 1) return survivors.every((c) => c.feasibility === 'feasible');
  const o = problem.objectives[0] as Objective;
  return survivors.every((c) => c === leader || indistinguishable(o, 0, c, leader));
}

/**
 * Reads the objective and constraint values of each replication from a round's records. An
 * objective over several parts is the mean of its parts in each replication. A replication that
 * errored or did not measure a metric drops the candidate.
 */
function absorb(problem: TuneProblem, live: Candidate[], records: readonly ReplicationRecord[], replications: number): Map<Candidate, string> {
  const errored = new Map<Candidate, string>();
  const index = new Map<string, ReplicationRecord>();
  for (const r of records) index.set(`${r.variant}\u0000${r.part}\u0000${r.replication}`, r);
  for (const c of live) {
    const objectiveValues: number[][] = problem.objectives.map(() => []);
    const constraintValues: number[][] = problem.constraints.map(() => []);
    let error: string | null = null;
    const read = (part: string, r: number, metric: string, window: string | null): number => {
      const rec = index.get(`${c.id}\u0000${part}\u0000${r}`);
      if (!rec) {
        error ??= `replication ${r} of part ${part} is missing`;
        return NaN;
      }
      if (rec.state === 'errored') {
        error ??= `replication ${r} of part ${part} errored: ${rec.error}`;
        return NaN;
      }
      const v = rec.metrics[metricKey(metric, window)];
      if (v === undefined) {
        error ??= `replication ${r} of part ${part} did not measure ${metricKey(metric, window)}`;
        return NaN;
      }
      return v;
    };
    for (let r = 0; r < replications; r++) {
      problem.objectives.forEach((o, i) => {
        let sum = 0;
        for (const part of o.parts) sum += read(part, r, o.metric, o.window);
        (objectiveValues[i] as number[]).push(sum / o.parts.length);
      });
      problem.constraints.forEach((k, i) => (constraintValues[i] as number[]).push(read(k.parts[0] as string, r, k.metric, k.window)));
    }
    c.objectiveValues = objectiveValues;
    c.constraintValues = constraintValues;
    c.replications = replications;
    if (error !== null) errored.set(c, error);
  }
  return errored;
}
