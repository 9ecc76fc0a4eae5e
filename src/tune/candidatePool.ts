import { stream } from '../engine/random.js';
import { canonicalJson } from '../experiment/index.js';
import { allPoints, latinHypercube, neighbours, pointKey, randomPoint, spaceSize, type SpacePoint } from './searchSpace.js';
import { pointOverrides, presetOverrides, resolveCandidate, type PresetContender, type TunePart, type TuneProblem } from './tuneProblem.js';
import { TuneInputError } from './TuneInputError.js';

/** How many of the best survivors of round 1 the local refinement explores around. */
export const REFINED_SURVIVORS = 3;
/** Draws allowed to replace a Latin-hypercube point that is not a valid scenario. */
const REDRAWS = 20;

/** Where a candidate came from. */
export type CandidateOrigin = 'hypercube' | 'grid' | 'preset' | 'refinement';

/** One contender of a search and what is known of it. */
export interface Candidate {
  /** Its variant name in the round files: `c<n>`, or the preset's name. */
  id: string;
  /** `maxAttempts=4, baseMs=50`, or the preset's layer and name. */
  label: string;
  /** Its values in the space, or null for a preset outside it. */
  point: SpacePoint | null;
  preset: PresetContender | null;
  origin: CandidateOrigin;
  /** Variant overrides per part name. */
  overrides: Record<string, Record<string, unknown>>;
  /** Identity: its resolved scenarios (a preset equal to a point of the space is that point). */
  scenarioKey: string;
  /** Replications done (0 to n - 1). */
  replications: number;
  /** Per objective, the value of each replication. */
  objectiveValues: number[][];
  /** Per constraint, the value of each replication. */
  constraintValues: number[][];
  alive: boolean;
  /** Why and when it left the search. */
  dropped: { round: number; reason: string } | null;
  feasibility: 'feasible' | 'infeasible' | 'unknown';
}

/** A candidate as first made: what it is, before anything is known of its runs. */
type NewCandidate = Omit<Candidate, 'replications' | 'objectiveValues' | 'constraintValues' | 'alive' | 'dropped' | 'feasibility'>;

function labelOf(problem: TuneProblem, point: SpacePoint): string {
  const names = problem.space.map((s) => s.path.split('.').pop() as string);
  const short = names.map((n, i) => (names.indexOf(n) === names.lastIndexOf(n) ? n : (problem.space[i] as { path: string }).path));
  return point.map((v, i) => `${short[i]}=${typeof v === 'string' ? v : canonicalJson(v)}`).join(', ');
}


/**
 * The contenders of a search, in the order they joined (the tie-break of every ranking), each
 * once: a candidate whose resolved scenarios equal an earlier one's is that one (a preset equal
 * to a point of the space takes the point's place under the preset's name).
 */
export class CandidatePool {
  readonly candidates: Candidate[] = [];
  /** Each candidate's rank in joining order. */
  readonly order = new Map<string, number>();
  private readonly byKey = new Map<string, Candidate>();
  private readonly byPoint = new Map<string, Candidate>();
  private nextId = 0;

  constructor(private readonly problem: TuneProblem) {}

  /** Round 0: the space's points (all of them when few, else a seeded Latin hypercube, an invalid point redrawn), then the presets. */
  addRoundZero(): void {
    const problem = this.problem;
    const random = stream(problem.seed, 'tune', 'latin-hypercube');
    const whole = spaceSize(problem.space) <= problem.candidates;
    const points = whole ? allPoints(problem.space) : latinHypercube(problem.space, problem.candidates, random);
    for (const first of points) {
      let point = first;
      let c = this.spaceCandidate(point, whole ? 'grid' : 'hypercube');
      for (let k = 0; c === null && !whole && k < REDRAWS; k++) {
        point = randomPoint(problem.space, random);
        c = this.spaceCandidate(point, 'hypercube');
      }
      if (c === null || this.byPoint.has(pointKey(point))) continue;
      this.add({ ...c, id: `c${++this.nextId}` });
    }
    for (const preset of problem.presets) this.addPreset(preset);
  }

  /** The local refinement: the neighbours in the space of the best {@link REFINED_SURVIVORS} of `ranked` (best first) that are points; returns the ids added. */
  addNeighbours(ranked: readonly Candidate[]): string[] {
    const added: string[] = [];
    for (const best of ranked.filter((c) => c.point !== null).slice(0, REFINED_SURVIVORS)) {
      for (const point of neighbours(this.problem.space, best.point as SpacePoint)) {
        if (this.byPoint.has(pointKey(point))) continue;
        const c = this.spaceCandidate(point, 'refinement');
        if (c === null || this.byKey.has(c.scenarioKey)) continue;
        added.push(this.add({ ...c, id: `c${++this.nextId}` }).id);
      }
    }
    return added;
  }

  private addPreset(preset: PresetContender): void {
    const problem = this.problem;
    const perPart: Record<string, Record<string, unknown>> = {};
    for (const p of problem.parts) perPart[p.name] = presetOverrides(p, preset);
    const resolved = resolveCandidate(problem, (p: TunePart) => perPart[p.name] as Record<string, unknown>);
    if (!resolved.ok) throw new TuneInputError(resolved.errors.map((e) => `preset ${preset.name} on layer ${preset.layer}: ${e}`));
    const id = this.candidates.some((c) => c.id === preset.name) ? `${preset.layer}.${preset.name}` : preset.name;
    const label = `preset ${preset.name} at ${preset.layer}`;
    const same = this.byKey.get(resolved.key);
    if (same) {
      // A preset equal to a point of the space is that point, named after the preset.
      if (same.preset === null && same.point !== null) {
        this.order.set(id, this.order.get(same.id) as number);
        same.id = id;
        same.label = `${label} (${same.label})`;
        same.preset = preset;
      }
      return;
    }
    this.add({ id, label, point: null, preset, origin: 'preset', overrides: perPart, scenarioKey: resolved.key });
  }

  /** A point of the space as a candidate, or null when it is not a valid scenario. */
  private spaceCandidate(point: SpacePoint, origin: CandidateOrigin): NewCandidate | null {
    const problem = this.problem;
    const overrides = pointOverrides(problem.space, point);
    const resolved = resolveCandidate(problem, () => overrides);
    if (!resolved.ok) return null;
    const perPart: Record<string, Record<string, unknown>> = {};
    for (const p of problem.parts) perPart[p.name] = overrides;
    return { id: '', label: labelOf(problem, point), point, preset: null, origin, overrides: perPart, scenarioKey: resolved.key };
  }

  private add(c: NewCandidate): Candidate {
    const problem = this.problem;
    const full: Candidate = {
      ...c,
      replications: 0,
      objectiveValues: problem.objectives.map(() => []),
      constraintValues: problem.constraints.map(() => []),
      alive: true,
      dropped: null,
      feasibility: 'unknown',
    };
    this.candidates.push(full);
    this.order.set(full.id, this.order.size);
    this.byKey.set(full.scenarioKey, full);
    if (full.point) this.byPoint.set(pointKey(full.point), full);
    return full;
  }
}
