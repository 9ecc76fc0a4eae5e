import * as eventKindsModule from '../eventKinds.js';
import type { Layers } from './Layers.js';
// Bound in this module: TurboFan folds a module's own constants, not imported bindings (docs/performance.md, "Imported bindings").
const { K_FRAME_ARRIVE, K_FRAME_RESPONSE, K_FRAME_SEND, K_FRAME_TIMEOUT, K_FRAME_WAKE, K_HEDGE, K_LEAF_ARRIVE, K_LEAF_RESPONSE } = eventKindsModule;

/**
 * One event of a stack of layers (`kind` relative to the stack's `kb`: a frame, hedge or request
 * kind of eventKinds.ts); stale events are skipped. Returns whether the event was live. The one
 * dispatch of a stack's events: the workload's stack (`Model.handle`) and every call site of a
 * service graph (`GraphRun`) send theirs here.
 */
export function dispatchStackEvent(ly: Layers, kind: number, a: number, b: number, t: number): boolean {
  if (kind === K_HEDGE) {
    if (!ly.frames.hedgeTimers.isLive(a, b)) return false;
    ly.hedges.due(a, t);
    return true;
  }
  if (kind <= K_FRAME_SEND) {
    if (!ly.frames.frameTimers.isLive(a, b)) return false;
  } else if (!ly.requests.timers.isLive(a, b)) return false;
  switch (kind) {
    case K_FRAME_WAKE:
      // A policy changed during the run (timed interventions): the wake-up may be asked again; else straight to the attempt.
      if (ly.rechecks) ly.wake(a, b, t);
      else ly.startAttempt(a, t);
      break;
    case K_FRAME_SEND:
      ly.sendAttempt(a, t);
      break;
    case K_FRAME_TIMEOUT:
      ly.attemptTimedOut(a, t);
      break;
    case K_FRAME_ARRIVE:
      ly.beginCall(a, t);
      break;
    case K_FRAME_RESPONSE:
      ly.frameResponseArrived(a, t);
      break;
    case K_LEAF_ARRIVE:
      ly.link.leafArrive(a, t);
      break;
    case K_LEAF_RESPONSE:
      ly.link.leafResponseArrived(a, t);
      break;
  }
  return true;
}
