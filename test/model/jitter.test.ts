import { describe, expect, it } from 'vitest';
import { ClientRandom, deriveSeed } from '../../src/engine/random.js';
import { Jitter } from '../../src/model/layers/Jitter.js';
import { layer, scenario } from '../helpers/scenario.js';

/** The stack's jitter: each layer's draws come from its own per-client streams, derived from the run's seed. */
describe('Jitter', () => {
  const sc = scenario({
    workload: { kind: 'burst', clients: 3, startMs: { dist: 'constant', value: 0 }, method: 'GET', permanentErrorFraction: 0 },
    stack: [layer('app'), layer('sdk', { seeding: { kind: 'time-seeded', resolutionMs: 1000 } })],
  });

  it('draws the aimed layer and client from that layer\'s stream of that client, in the client\'s own order', () => {
    const j = new Jitter(sc, 7, undefined);
    const app = new ClientRandom(3, deriveSeed(7, 'jitter', 0), { kind: 'independent' });
    j.aim(0, 2);
    const first = j.uniform();
    j.aim(0, 1);
    const other = j.uniform();
    j.aim(0, 2);
    const second = j.uniform();
    expect([first, second]).toEqual([app.next(2), app.next(2)]);
    expect(other).toBe(app.next(1));
  });

  it('seeds a time-seeded layer\'s client from the start of its call, and no other layer', () => {
    const j = new Jitter(sc, 7, undefined);
    expect(j.timeSeeded).toEqual([false, true]);
    const sdk = new ClientRandom(3, deriveSeed(7, 'jitter', 1), { kind: 'time-seeded', resolutionMs: 1000 });
    sdk.start(0, 2500);
    j.callStarted(1, 0, 2500);
    j.aim(1, 0);
    expect(j.uniform()).toBe(sdk.next(0));
  });

  it('gives the fixed draw for every layer and client when one is set', () => {
    const j = new Jitter(sc, 7, 0.25);
    j.aim(1, 2);
    expect(j.uniform()).toBe(0.25);
    j.aim(0, 0);
    expect(j.uniform()).toBe(0.25);
  });
});
