import { describe, expect, it } from 'vitest';
import { parseScenario } from '../../src/experiment/index.js';
import { callsIfEveryCallFails } from '../../src/model/graph/failureAmplification.js';
import type { Scenario } from '../../src/model/scenario.js';

type Json = Record<string, any>;

const server = { kind: 'server', serviceMs: 1 };
const attempts = (...n: Array<number | 'unlimited'>) => n.map((maxAttempts, i) => ({ name: `l${i}`, policy: { maxAttempts } }));

/** A frontend fanning out to users and orders, which both call db; a second call step that never runs when the first fails. */
function fanOut(entry: Json = { service: 'frontend', endpoint: 'page' }): Json {
  return {
    workload: { kind: 'burst', clients: 1, entry },
    stack: attempts(2, 3),
    services: {
      frontend: {
        fleet: server,
        endpoints: {
          page: {
            steps: [
              { kind: 'work' },
              { kind: 'call', calls: [{ service: 'users', stack: attempts(2, 3) }, { service: 'orders', stack: attempts(3) }] },
              { kind: 'call', calls: [{ service: 'audit' }] },
            ],
          },
          health: {},
        },
      },
      users: { fleet: server, endpoints: { get: { steps: [{ kind: 'call', calls: [{ service: 'db', stack: attempts(2) }] }] } } },
      orders: { fleet: server, endpoints: { get: { steps: [{ kind: 'call', calls: [{ service: 'db', stack: attempts(4) }] }] } } },
      db: { fleet: server, endpoints: { query: {} } },
      audit: { fleet: server, endpoints: { log: {} } },
    },
  };
}

function edges(input: Json): Array<[string, number]> {
  const sc: Scenario = parseScenario(input);
  return callsIfEveryCallFails(sc.graph as NonNullable<Scenario['graph']>, sc.stack).map((e) => [`${e.caller} -> ${e.callee}`, e.callsPerOperation]);
}

describe('calls on each edge when every call fails', () => {
  it('multiplies the attempts of every layer along each path and sums the paths into an edge', () => {
    // Entry stack 2 x 3 = 6; frontend -> users 2 x 3, frontend -> orders 3; users -> db 2, orders -> db 4.
    expect(edges(fanOut())).toEqual([
      ['workload -> frontend', 6],
      ['frontend -> users', 6 * 6],
      ['users -> db', 6 * 6 * 2],
      ['frontend -> orders', 6 * 3],
      ['orders -> db', 6 * 3 * 4],
    ]);
  });

  it('weighs the entries of a mix by their share', () => {
    const mix = [{ service: 'frontend', endpoint: 'page', weight: 3 }, { service: 'frontend', endpoint: 'health' }];
    expect(edges(fanOut(mix))).toEqual([
      ['workload -> frontend', 6],
      ['frontend -> users', 27],
      ['users -> db', 54],
      ['frontend -> orders', 13.5],
      ['orders -> db', 54],
    ]);
  });

  it('is unbounded past a layer without an attempt cap', () => {
    const g = fanOut();
    g.services.orders.endpoints.get.steps[0].calls[0].stack = attempts('unlimited');
    expect(edges(g).find(([name]) => name === 'orders -> db')).toEqual(['orders -> db', Infinity]);
    expect(edges(g).find(([name]) => name === 'users -> db')).toEqual(['users -> db', 72]);
  });
});
