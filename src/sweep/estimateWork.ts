import { distMean } from '../engine/distributions.js';
import type { Scenario } from '../model/scenario.js';
import { rateFunction } from '../model/rateSchedule.js';

/** A rough size of one run, for `retrystorm validate`: operations and the most leaf calls they can cause. */
export interface WorkEstimate {
  operations: number;
  /** Operations x the product of the layers' attempt caps (Infinity with an unlimited layer). */
  maxLeafCalls: number;
}

/**
 * Estimate the operations of one run: burst = clients; open loop = the integral of the rate over
 * the duration (warm-up included); closed loop = clients x duration / (think + service) using the
 * mean times (an upper bound when the server queues).
 */
export function estimateWork(sc: Scenario): WorkEstimate {
  // A graph's several workloads: the sum of each one's, on its own stack.
  const several = sc.graph?.workloads;
  if (several !== undefined && several.length > 1) {
    const parts = several.map((w) => estimateWork({ ...sc, workload: w.workload, stack: w.stack, graph: { ...sc.graph!, workloads: undefined } }));
    return { operations: parts.reduce((n, p) => n + p.operations, 0), maxLeafCalls: parts.reduce((n, p) => n + p.maxLeafCalls, 0) };
  }
  const operations = estimateOperations(sc);
  let product = 1;
  for (const l of sc.stack) product *= l.policy.maxAttempts === 'unlimited' ? Infinity : l.policy.maxAttempts;
  return { operations: Math.round(operations), maxLeafCalls: operations * product };
}

/** The operations of one run of `sc` (see {@link estimateWork}), by workload kind. */
function estimateOperations(sc: Scenario): number {
  const w = sc.workload;
  switch (w.kind) {
    case 'burst':
      return w.clients;
    case 'open': {
      const rf = rateFunction(w.rate);
      const from = -sc.warmupMs;
      const steps = 1000;
      const dt = (w.durationMs - from) / steps;
      let sum = 0;
      for (let i = 0; i < steps; i++) sum += rf.ratePerSec(from + (i + 0.5) * dt) * (dt / 1000);
      return sum;
    }
    case 'closed': {
      const service = sc.leaf.kind === 'server' ? distMean(sc.leaf.serviceMs) : 1;
      const cycle = Math.max(1e-3, distMean(w.thinkMs) + service);
      return (w.clients * (w.durationMs + sc.warmupMs)) / cycle;
    }
    default: {
      const unknown: never = w;
      throw new Error(`unknown workload kind ${JSON.stringify((unknown as { kind: unknown }).kind)}`);
    }
  }
}
