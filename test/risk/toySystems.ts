import type { Advanced, BranchStreams, Continuation, SplittableSystem } from '../../src/risk/SplittableSystem.js';

/** A toy's whole state: the chain's counts, the time, and the generator's one word. */
export interface ToyState {
  readonly x: readonly number[];
  readonly t: number;
  readonly rng: number;
}

/** A continuous-time Markov chain on integer vectors, as a tiny event simulator. */
export interface ChainSpec {
  initial: readonly number[];
  /** The rates of the moves out of `x` (a move is the next state). */
  moves(x: readonly number[]): Array<{ rate: number; to: number[] }>;
  importance(x: readonly number[]): number;
  collapsed(x: readonly number[]): boolean;
  absorbed(x: readonly number[]): boolean;
  /** Events later than this time are not run (Infinity: no horizon). */
  horizon: number;
}

/** mulberry32 (Tommy Ettinger, public domain): the next state and draw in [0, 1) of a 32-bit state. */
function mulberry32(state: number): [number, number] {
  const a = (state + 0x6d2b79f5) | 0;
  let t = Math.imul(a ^ (a >>> 15), a | 1);
  t = (t + Math.imul(t ^ (t >>> 7), t | 61)) ^ t;
  return [a, ((t ^ (t >>> 14)) >>> 0) / 4294967296];
}

/** One trajectory of a chain: deterministic from its state (the generator's word included). */
class ChainRun implements Continuation<ToyState> {
  private x: number[];
  private t: number;
  private rng: number;

  constructor(
    private readonly spec: ChainSpec,
    s: ToyState,
  ) {
    this.x = [...s.x];
    this.t = s.t;
    this.rng = s.rng;
  }

  private draw(): number {
    const [state, u] = mulberry32(this.rng);
    this.rng = state;
    return u;
  }

  importance(): number {
    return this.spec.importance(this.x);
  }

  snapshot(): ToyState {
    return { x: [...this.x], t: this.t, rng: this.rng };
  }

  advance(untilImportance: number): Advanced {
    const spec = this.spec;
    for (let steps = 0; ; steps++) {
      const importance = spec.importance(this.x);
      if (spec.collapsed(this.x)) return { reason: 'collapse', importance, steps };
      if (importance >= untilImportance) return { reason: 'level', importance, steps };
      if (spec.absorbed(this.x)) return { reason: 'absorbed', importance, steps };
      const moves = spec.moves(this.x);
      const total = moves.reduce((s, m) => s + m.rate, 0);
      const dt = spec.horizon === Infinity ? 0 : -Math.log(1 - this.draw()) / total;
      if (total === 0 || this.t + dt > spec.horizon) return { reason: 'horizon', importance, steps };
      let pick = this.draw() * total;
      let to = (moves[moves.length - 1] as { to: number[] }).to;
      for (const m of moves) {
        if (pick < m.rate) {
          to = m.to;
          break;
        }
        pick -= m.rate;
      }
      this.t += dt;
      this.x = to;
    }
  }
}

/** The chain as a {@link SplittableSystem}: fresh streams reseed the generator's word. */
export function chainSystem(spec: ChainSpec): SplittableSystem<ToyState> & { runs: number } {
  return {
    runs: 0,
    start(seed: number) {
      this.runs++;
      return new ChainRun(spec, { x: spec.initial, t: 0, rng: seed | 0 });
    },
    restore(s: ToyState, streams: BranchStreams) {
      this.runs++;
      return new ChainRun(spec, streams.kind === 'original' ? s : { ...s, rng: streams.seed | 0 });
    },
  };
}

/**
 * An M/M/1 queue's number in system, started at 1, until it reaches `n` (the collapse) or empties
 * (absorbed); with a finite horizon, in continuous time.
 */
export function mm1(lambda: number, mu: number, n: number, horizon = Infinity): ChainSpec {
  return {
    initial: [1],
    moves: ([k]) => [
      { rate: lambda, to: [(k as number) + 1] },
      { rate: mu, to: [(k as number) - 1] },
    ],
    importance: ([k]) => k as number,
    collapsed: ([k]) => (k as number) >= n,
    absorbed: ([k]) => k === 0,
    horizon,
  };
}

/** The retrying server of {@link retrial}. */
export interface RetrialSpec {
  /** Arrival rate of new clients. */
  lambda: number;
  /** Service rate of the one server. */
  mu: number;
  /** Each client in the orbit retries at this rate. */
  theta: number;
  /** Clients the server holds at most (in service and queued); an arrival finding it full joins the orbit. */
  capacity: number;
  /** The orbit size that is the collapse. */
  orbitLimit: number;
}

/** The moves of the retrial queue out of (q, o): arrival, service, retry (one that finds it full is no move). */
export function retrialMoves(s: RetrialSpec, q: number, o: number): Array<{ rate: number; to: number[] }> {
  const moves = [{ rate: s.lambda, to: q < s.capacity ? [q + 1, o] : [q, o + 1] }];
  if (q > 0) moves.push({ rate: s.mu, to: [q - 1, o] });
  if (o > 0 && q < s.capacity) moves.push({ rate: o * s.theta, to: [q + 1, o - 1] });
  return moves;
}

/**
 * A single server with a bounded queue and an orbit of retrying clients (state (queue, orbit)),
 * started with one client at the server, until the orbit reaches its limit (the collapse) or the
 * system empties (absorbed). The importance is the orbit's size.
 */
export function retrial(s: RetrialSpec): ChainSpec {
  return {
    initial: [1, 0],
    moves: ([q, o]) => retrialMoves(s, q as number, o as number),
    importance: ([, o]) => o as number,
    collapsed: ([, o]) => (o as number) >= s.orbitLimit,
    absorbed: ([q, o]) => q === 0 && o === 0,
    horizon: Infinity,
  };
}
