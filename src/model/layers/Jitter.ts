import { ClientRandom } from '../../engine/random.js';
import type { UniformDraw } from '../../policy/retryLoop.js';
import type { Scenario } from '../scenario.js';

/**
 * The backoff jitter of a stack's layers: per layer, a stream per client (`ClientRandom`, seeded as
 * the layer's policy says: independent, shared or time-seeded), or one fixed draw for every jitter
 * (teaching and tests). The retry loops draw through it ({@link UniformDraw}); the layers aim it at
 * a layer and a client ({@link aim}) before each decision.
 */
export class Jitter implements UniformDraw {
  /** Per layer: its clients' streams. */
  private readonly streams: ClientRandom[];
  /** Per layer: a client's stream is seeded as each of its calls starts ({@link callStarted}). */
  readonly timeSeeded: boolean[];
  /** Every draw, when fixed (a fraction of the range). */
  private readonly fixedDraw: number | undefined;
  /** The layer and client the next draw is for ({@link aim}). */
  private layer = 0;
  private client = 0;

  /** The jitter of `sc.stack`'s layers under the run's `seed` (each layer's streams derived from it), or `fixedDraw` for every draw. */
  constructor(sc: Scenario, seed: number, fixedDraw: number | undefined) {
    const clients = sc.workload.clients;
    this.streams = sc.stack.map((l, k) => ClientRandom.named(clients, l.policy.seeding ?? { kind: 'independent' }, seed, 'jitter', k));
    this.timeSeeded = sc.stack.map((l) => l.policy.seeding?.kind === 'time-seeded');
    this.fixedDraw = fixedDraw;
  }

  /** The next draw ({@link uniform}) is layer k's, for `client`. */
  aim(k: number, client: number): void {
    this.layer = k;
    this.client = client;
  }

  /** The draw the loops ask for: the aimed layer's stream of the aimed client (or the fixed draw). */
  uniform(): number {
    const fixed = this.fixedDraw;
    if (fixed !== undefined) return fixed;
    return (this.streams[this.layer] as ClientRandom).next(this.client);
  }

  /** A call of `client` starts at layer k at t: a time-seeded layer seeds the client's stream from t. */
  callStarted(k: number, client: number, t: number): void {
    if (this.timeSeeded[k]) (this.streams[k] as ClientRandom).start(client, t);
  }
}
