import { readFileSync } from 'node:fs';
import { expandExperiment, patchedRoot, type ExpandOptions } from '../../src/experiment/index.js';
import { runReplication, type ReplicationRecord } from '../../src/sweep/runPlan.js';
import type { EvaluateRound, RoundRequest } from '../../src/tune/runTune.js';
import { prepareTune } from '../../src/tune/prepareTune.js';
import type { TuneProblem } from '../../src/tune/tuneProblem.js';

/** A fixture of this directory as a JSON object. */
export function fixture(name: string): Record<string, unknown> {
  return JSON.parse(readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8')) as Record<string, unknown>;
}

/** The search problem of an experiment root, patched as the command line patches it (throws on problems). */
export function problemOf(root: Record<string, unknown>, options: ExpandOptions = { quick: false }, overrides: { candidates?: number; maxRuns?: number } = {}): TuneProblem {
  const prepared = prepareTune(patchedRoot(root, options), overrides);
  if (!prepared.ok) throw new Error(prepared.errors.join('\n'));
  return prepared.problem;
}

/**
 * Runs each round's replications in this thread (the records a sweep of the round file makes,
 * through the sweep's own runReplication), reusing the previous round's records, and counts the
 * runs it starts and the rounds it is asked for.
 */
export function inThread(): { evaluate: EvaluateRound; started: number; requests: RoundRequest[] } {
  const state = { started: 0, requests: [] as RoundRequest[], evaluate: (async () => ({ interrupted: true })) as EvaluateRound };
  state.evaluate = async (req) => {
    state.requests.push(req);
    const expanded = expandExperiment({ root: req.experiment }, { quick: false });
    if (!expanded.ok) throw new Error(expanded.errors.join('\n'));
    const plan = expanded.plan;
    const prior = new Map(req.prior.map((r) => [`${r.key}\u0000${r.replication}`, r]));
    const records: ReplicationRecord[] = [];
    for (const part of plan.parts) {
      for (const cell of part.cells) {
        for (let r = 0; r < part.replications; r++) {
          const known = prior.get(`${cell.key}\u0000${r}`);
          if (known) records.push(known);
          else {
            state.started++;
            records.push(runReplication(cell, r, plan.seed));
          }
        }
      }
    }
    return { interrupted: false, records };
  };
  return state;
}
