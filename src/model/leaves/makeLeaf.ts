import { KIND_LIMIT } from '../eventKinds.js';
import type { Folds } from '../folds.js';
import type { Scenario } from '../scenario.js';
import { unknownLeaf, type Leaf, type LeafContext, type LeafKind } from './Leaf.js';
import { OCC_EVENT_KINDS, OccLeaf } from './OccLeaf.js';
import { SCRIPT_EVENT_KINDS, ScriptLeaf } from './ScriptLeaf.js';
import { FARM_EVENT_KINDS, ServerFarm } from './server/ServerFarm.js';

/** How the model runs the leaf (beyond what the scenario says). */
export interface LeafSetup {
  folds: Folds;
  /** The last hop takes no time / is a constant delay above 0 (then the event queue's lane for it). */
  lastHopZero: boolean;
  lastHopLane: number;
  /** Traced runs take no shortcut. */
  tracing: boolean;
}

/** The leaf a scenario names, with the event kinds from `ctx.kindBase` on. */
export function makeLeaf(sc: Scenario, ctx: LeafContext, setup: LeafSetup): Leaf {
  const leaf = sc.leaf;
  switch (leaf.kind) {
    case 'server':
    case 'pool':
      checkRange(ctx, FARM_EVENT_KINDS);
      return new ServerFarm(leaf, ctx, {
        badInput: sc.workload.permanentErrorFraction > 0,
        avoidHosts: leaf.kind === 'pool' && sc.stack[sc.stack.length - 1]?.policy.retryHostPredicate === 'previous-hosts',
        shortcuts: !setup.tracing,
        limitsChange: sc.interventions !== undefined,
      });
    case 'occ':
      checkRange(ctx, OCC_EVENT_KINDS);
      return new OccLeaf(ctx, { hopZero: setup.lastHopZero, writeLane: setup.lastHopLane >= 0 ? ctx.sim.addLane() : -1, readAhead: setup.folds.readAhead });
    case 'script':
      checkRange(ctx, SCRIPT_EVENT_KINDS);
      return new ScriptLeaf(leaf.script, sc, ctx);
    default:
      return unknownLeaf(leaf);
  }
}

function checkRange(ctx: LeafContext, kinds: number): void {
  if (ctx.kindBase + kinds > KIND_LIMIT) throw new Error(`internal: the leaf's ${kinds} event kinds from ${ctx.kindBase} exceed ${KIND_LIMIT}`);
}

/** How many event kinds a leaf of this kind schedules (the size of its range from `kindBase`). */
export function leafEventKinds(kind: LeafKind): number {
  switch (kind) {
    case 'server':
    case 'pool':
      return FARM_EVENT_KINDS;
    case 'occ':
      return OCC_EVENT_KINDS;
    case 'script':
      return SCRIPT_EVENT_KINDS;
    default:
      return unknownLeaf(kind);
  }
}
