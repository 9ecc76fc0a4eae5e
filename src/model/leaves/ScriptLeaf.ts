import * as requestTableModule from '../RequestTable.js';
import type { Scenario, ScriptEntry } from '../scenario.js';
import { ScenarioError } from '../ScenarioError.js';
import * as statusOutcomeModule from '../statusOutcome.js';
import { EventLeaf } from './EventLeaf.js';
import type { LeafContext } from './Leaf.js';
// Bound in this module: TurboFan folds a module's own constants, not imported bindings (docs/performance.md, "Imported bindings").
const { R_DELAYED, R_HANG } = requestTableModule;
const { statusOutcome } = statusOutcomeModule;

/** The script leaf's event kinds, relative to the first kind the model gives it. */
const K_DONE = 0;
/** How many event kinds the script leaf schedules. */
export const SCRIPT_EVENT_KINDS = 1;

/**
 * A leaf that answers each operation's i-th request with entry i of its script (the last entry
 * repeats), after the entry's duration; `hang` never answers. What `trace` runs on.
 */
export class ScriptLeaf extends EventLeaf {
  private readonly script: ScriptEntry[];
  /** Per operation: the requests it has sent so far. */
  private readonly index = new Map<number, number>();

  constructor(script: ScriptEntry[], sc: Scenario, ctx: LeafContext) {
    super(ctx, false);
    if (script.length === 0) throw new ScenarioError(['scenario.leaf.script must not be empty']);
    const hangs = script.some((e) => e.status === 'hang');
    // The same rule as the experiment schema: some layer's per-attempt timeout, or a deadline, ends a hung attempt.
    const bounded = sc.workload.deadlineMs !== undefined || sc.stack.some((l) => l.policy.perAttemptTimeoutMs !== undefined);
    if (hangs && !bounded) {
      throw new ScenarioError(['scenario.leaf.script has "hang" (or "timeout" without a duration), which never answers: set a per-attempt timeout or a deadline']);
    }
    this.script = script;
  }

  dispatch(kind: number, a: number, b: number, t: number): boolean {
    switch (kind) {
      case K_DONE:
        if (!this.req.timers.isLive(a, b)) return false;
        this.host.respond(a, this.req.outcome[a] as number, this.req.retryAfter[a] as number, t);
        return true;
      default:
        return false;
    }
  }

  arrive(r: number, t: number): void {
    const req = this.req;
    const op = req.opSeq[r] as number;
    const i = this.index.get(op) ?? 0;
    this.index.set(op, i + 1);
    const e = this.script[Math.min(i, this.script.length - 1)] as ScriptEntry;
    if (e.status === 'hang') {
      req.state[r] = R_HANG;
      return;
    }
    const outcome = statusOutcome(e.status);
    const ra = e.retryAfterMs ?? NaN;
    if (e.durationMs === 0) {
      this.host.respond(r, outcome, ra, t);
      return;
    }
    req.state[r] = R_DELAYED;
    req.outcome[r] = outcome;
    req.retryAfter[r] = ra;
    this.sim.at(t + e.durationMs, this.kindBase + K_DONE, r, req.timers.arm(r));
  }
}
