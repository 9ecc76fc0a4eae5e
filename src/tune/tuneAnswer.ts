import { durationUnit } from '../policy/formatDuration.js';
import type { MetricStats } from '../sweep/aggregate.js';
import {
  bestFirst,
  constraintStats,
  indistinguishable,
  objectiveStats,
  paretoRanks,
  violation,
  type Candidate,
  type RoundLog,
  type StopReason,
  type TuneOutcome,
} from './runTune.js';
import type { TuneProblem } from './tuneProblem.js';

/** One candidate in the answer's ranked table. */
export interface CandidateRow {
  rank: number;
  id: string;
  label: string;
  origin: Candidate['origin'];
  /** Its values by dotted path, or null for a preset outside the space. */
  values: Record<string, unknown> | null;
  preset: { layer: string; name: string } | null;
  replications: number;
  status: 'survivor' | 'dropped';
  /** Why it left the search (`worse than c4 (paired 95%)`, `halved`, `proven infeasible`...). */
  reason: string | null;
  droppedInRound: number | null;
  feasibility: Candidate['feasibility'];
  objectives: MetricStats[];
  constraints: Array<MetricStats & { met: 'yes' | 'no' | 'unknown' }>;
}

/** The recommendation and how sure the search is of it. */
export interface Recommendation {
  id: string;
  label: string;
  /** As variant overrides (dotted paths relative to the scenario), per part. */
  overrides: Record<string, Record<string, unknown>>;
  /** As command-line flags. */
  setFlags: string[];
  objectives: MetricStats[];
  constraints: MetricStats[];
  /** Survivors whose objective it cannot tell apart from the recommendation's (equivalence at 5%). */
  indistinguishableFrom: string[];
  /** Survivors neither dropped nor shown equivalent when the search stopped. */
  notSeparatedFrom: string[];
  /** Each tuned layer's recommended policy written in the export formats (filled by the command line, which owns `export`). */
  configuration?: LayerConfiguration[];
}

/**
 * One tuned layer's recommended policy as configuration: one text per export format, with what the
 * format cannot express. Layers of one name whose recommended policies are the same (a tied
 * dimension's layers, unless they differ elsewhere) share one entry.
 */
export interface LayerConfiguration {
  /** The layers' name. */
  layer: string;
  /** The full paths of the layers it applies to, in the scenario as written (`stack.1`, `services.gateway.endpoints.get.steps.0.calls.0.stack.0`). */
  layers: string[];
  exports: Array<{ format: string; text: string; warnings: string[] }>;
}

/** What `retrystorm tune` answers (tune.json). */
export interface TuneAnswer {
  experiment: string;
  /** The experiment's description (as the plan that ran resolved it). */
  description: string;
  seed: number;
  status: 'recommended' | 'no-feasible-candidate';
  stopReason: StopReason | null;
  /** One sentence: the recommendation or why there is none. */
  headline: string;
  totalRuns: number;
  maxRuns: number;
  /** The space's dimensions, each with the layers it sets (full paths; a tied selector's several, a `free` selector's one each). */
  space: Array<{ path: string; dimension: unknown; layers: string[] }>;
  objectives: Array<{ label: string; goal: string; tolerance: number | null }>;
  constraints: string[];
  rounds: RoundLog[];
  ranking: CandidateRow[];
  recommendation: Recommendation | null;
  /** Two objectives: the survivors on the front (non-dominated, proven feasible), best first. */
  front: string[];
  /** With no feasible candidate: the ones closest to meeting the constraints. */
  closest: string[];
  /** Where each preset ranks. */
  presets: Array<{ id: string; layer: string; name: string; rank: number }>;
}

/** Candidates that come close when none meets the constraints. */
const CLOSEST = 3;

function met(c: Candidate, k: TuneProblem['constraints'][number], s: MetricStats): 'yes' | 'no' | 'unknown' {
  if (s.n === 0) return 'unknown';
  const [lo, hi] = s.ci95;
  if ((k.min !== null && hi < k.min) || (k.max !== null && lo > k.max)) return 'no';
  if ((k.min === null || lo >= k.min) && (k.max === null || hi <= k.max)) return 'yes';
  return 'unknown';
}

/**
 * The command-line flags that apply a candidate's overrides to the tuned experiment file: `--set
 * <path>=<value>` (paths relative to the scenario, so they apply to every part) when every part
 * has the same overrides, otherwise `--set parts.<name>.<path>=<value>` for each part.
 */
export function setFlags(problem: TuneProblem, overrides: Record<string, Record<string, unknown>>): string[] {
  const flag = (path: string, value: unknown) => {
    const text = typeof value === 'string' ? value : JSON.stringify(value);
    return `--set ${path}=${/[\s'"\\$`]/.test(text) ? `'${text.replace(/'/g, "'\\''")}'` : text}`;
  };
  const texts = problem.parts.map((p) => JSON.stringify(overrides[p.name] ?? {}));
  if (texts.every((t) => t === texts[0])) {
    return Object.entries(overrides[problem.parts[0]?.name ?? ''] ?? {}).map(([path, value]) => flag(path, value));
  }
  return problem.parts.flatMap((part) => Object.entries(overrides[part.name] ?? {}).map(([path, value]) => flag(`parts.${part.name}.${path}`, value)));
}

function fmt(x: number): string {
  if (!Number.isFinite(x)) return String(x);
  const a = Math.abs(x);
  if (a !== 0 && (a >= 1e6 || a < 1e-3)) return x.toExponential(3);
  return String(Number(x.toPrecision(4)));
}

/** `1.875 [1.86, 1.89]`. */
export function formatStats(s: MetricStats): string {
  if (s.n === 0) return '-';
  if (s.n === 1 || s.ci95[0] === s.ci95[1]) return fmt(s.mean);
  return `${fmt(s.mean)} [${fmt(s.ci95[0])}, ${fmt(s.ci95[1])}]`;
}

/** A duration's {@link formatStats} in the unit that reads best for its mean, with the unit: `523.4 [500, 540]` ms is `523.4 [500, 540] ms`, `1500 [1400, 1600]` ms is `1.5 [1.4, 1.6] s`. */
export function formatDurationStats(s: MetricStats): string {
  if (s.n === 0) return '-';
  const u = durationUnit(s.mean, fmt);
  return `${formatStats({ ...s, mean: s.mean / u.ms, ci95: [s.ci95[0] / u.ms, s.ci95[1] / u.ms] })} ${u.unit}`;
}

/** The answer of a finished search: the ranked table, the recommendation, the front, the presets' ranks. */
export function tuneAnswer(problem: TuneProblem, outcome: TuneOutcome): TuneAnswer {
  // Candidates added by the refinement but never run (the run budget stopped the search first) are left out.
  const cs = outcome.candidates.filter((c) => c.replications > 0);
  const order = new Map(cs.map((c, i) => [c.id, i]));
  const ranking: CandidateRow[] = rankCandidates(problem, cs, order).map((c, i) => candidateRow(problem, c, i + 1));
  const byId = new Map(cs.map((c) => [c.id, c]));
  const survivors = cs.filter((c) => c.alive);
  const leader = outcome.recommended === null ? null : (byId.get(outcome.recommended) as Candidate);
  const recommendation = leader ? recommend(problem, leader, survivors) : null;
  const feasibleSurvivors = survivors.filter((c) => c.feasibility === 'feasible');
  const ranks = problem.objectives.length > 1 ? paretoRanks(problem.objectives, feasibleSurvivors) : null;
  const front = ranks ? bestFirst(problem.objectives, feasibleSurvivors.filter((c) => ranks.get(c.id) === 0), order).map((c) => c.id) : [];
  const closest = leader
    ? []
    : [...cs]
        .filter((c) => !c.dropped?.reason.startsWith('errored'))
        .sort((a, b) => violation(a, problem.constraints) - violation(b, problem.constraints) || (order.get(a.id) as number) - (order.get(b.id) as number))
        .slice(0, CLOSEST)
        .map((c) => c.id);
  const rankOf = new Map(ranking.map((r) => [r.id, r.rank]));
  const presets = cs.filter((c) => c.preset !== null).map((c) => ({ id: c.id, layer: (c.preset as { layer: string }).layer, name: (c.preset as { name: string }).name, rank: rankOf.get(c.id) as number }));

  return {
    experiment: problem.name,
    description: problem.description,
    seed: problem.seed,
    status: leader ? 'recommended' : 'no-feasible-candidate',
    stopReason: outcome.stopReason,
    headline: headline(problem, outcome, recommendation, closest, byId),
    totalRuns: outcome.totalRuns,
    maxRuns: problem.maxRuns,
    space: problem.space.map((s) => ({ path: s.path, dimension: s.dimension, layers: s.layers ?? [] })),
    objectives: problem.objectives.map((o) => ({ label: o.label, goal: o.goal, tolerance: o.tolerance })),
    constraints: problem.constraints.map((k) => k.label),
    rounds: outcome.rounds,
    ranking,
    recommendation,
    front,
    closest,
    presets,
  };
}

/**
 * The candidates best first: the feasible survivors, the undecided survivors, the dropped (those that
 * lasted longer first), the infeasible (least violation first), the errored; ties in `order`.
 */
function rankCandidates(problem: TuneProblem, cs: readonly Candidate[], order: ReadonlyMap<string, number>): Candidate[] {
  const group = (c: Candidate): number => {
    if (c.alive) return c.feasibility === 'feasible' ? 0 : 1;
    if (c.dropped?.reason.startsWith('errored')) return 4;
    return c.feasibility === 'infeasible' ? 3 : 2;
  };
  const groups = [0, 1, 2, 3, 4].map((g) => cs.filter((c) => group(c) === g));
  return [
    ...bestFirst(problem.objectives, groups[0] as Candidate[], order),
    ...bestFirst(problem.objectives, groups[1] as Candidate[], order),
    // Dropped: those that lasted longer first, then by mean.
    ...[...new Set((groups[2] as Candidate[]).map((c) => c.replications))]
      .sort((a, b) => b - a)
      .flatMap((n) => bestFirst(problem.objectives, (groups[2] as Candidate[]).filter((c) => c.replications === n), order)),
    ...[...(groups[3] as Candidate[])].sort((a, b) => violation(a, problem.constraints) - violation(b, problem.constraints) || (order.get(a.id) as number) - (order.get(b.id) as number)),
    ...(groups[4] as Candidate[]),
  ];
}

/** A candidate's row of the ranked table. */
function candidateRow(problem: TuneProblem, c: Candidate, rank: number): CandidateRow {
  return {
    rank,
    id: c.id,
    label: c.label,
    origin: c.origin,
    values: c.point ? Object.fromEntries(problem.space.map((s, d) => [s.path, c.point?.[d]])) : null,
    preset: c.preset,
    replications: c.replications,
    status: c.alive ? 'survivor' : 'dropped',
    reason: c.dropped?.reason ?? null,
    droppedInRound: c.dropped?.round ?? null,
    feasibility: c.feasibility,
    objectives: problem.objectives.map((_, k) => objectiveStats(c, k)),
    constraints: problem.constraints.map((k, j) => {
      const s = constraintStats(c, j);
      return { ...s, met: met(c, k, s) };
    }),
  };
}

/** The recommendation of the leader, with (one objective) the survivors it cannot be told from. */
function recommend(problem: TuneProblem, leader: Candidate, survivors: readonly Candidate[]): Recommendation {
  const others = survivors.filter((c) => c !== leader);
  const o = problem.objectives[0] as TuneProblem['objectives'][number];
  const same = problem.objectives.length === 1 ? others.filter((c) => indistinguishable(o, 0, c, leader)).map((c) => c.id) : [];
  return {
    id: leader.id,
    label: leader.label,
    overrides: leader.overrides,
    setFlags: setFlags(problem, leader.overrides),
    objectives: problem.objectives.map((_, k) => objectiveStats(leader, k)),
    constraints: problem.constraints.map((_, j) => constraintStats(leader, j)),
    indistinguishableFrom: same,
    notSeparatedFrom: problem.objectives.length === 1 ? others.filter((c) => !same.includes(c.id)).map((c) => c.id) : [],
  };
}

function headline(problem: TuneProblem, outcome: TuneOutcome, rec: Recommendation | null, closest: string[], byId: Map<string, Candidate>): string {
  if (!rec) {
    const undecided = outcome.candidates.some((c) => c.alive);
    const why = undecided ? `feasibility not established within ${problem.maxRuns} runs` : 'every candidate was proven infeasible or errored';
    return `Nothing to recommend: no candidate met the constraints (${why}); closest: ${closest.map((id) => byId.get(id)?.label ?? id).join('; ')}.`;
  }
  const o = problem.objectives.map((ob, k) => `${ob.label} ${formatStats(rec.objectives[k] as MetricStats)}`).join(', ');
  const sure =
    rec.indistinguishableFrom.length > 0
      ? `, indistinguishable from ${rec.indistinguishableFrom.join(', ')}`
      : rec.notSeparatedFrom.length > 0
        ? `, not yet separated from ${rec.notSeparatedFrom.join(', ')}`
        : ', the only survivor';
  return `Recommended ${rec.id} (${rec.label}): ${o}${sure}.`;
}
