import { triggerWindows } from '../model/rateSchedule.js';
import type { Scenario } from '../model/scenario.js';

/** A time window in which the system was pushed: a load spike or ramp, a capacity dip or outage, injected faults. */
export interface TriggerWindow {
  fromMs: number;
  /** Null when the window never closes (it is drawn to the end of the series). */
  toMs: number | null;
  label: string;
  kind: 'workload' | 'capacity' | 'fault';
}

function num(v: unknown): number | null {
  return typeof v === 'number' && Number.isFinite(v) ? v : null;
}

/**
 * The trigger windows of a scenario, for shading time series: spikes and ramps of an open-loop rate
 * schedule (and the change of a step), capacity windows of a server (0 workers = outage), and
 * fault-injection windows. A scenario read back from JSON may lack infinite ends (open windows).
 */
export function scenarioTriggerWindows(scenario: Scenario): TriggerWindow[] {
  const out: TriggerWindow[] = [];
  const w = scenario.workload;
  if (w.kind === 'open') {
    if (w.rate.kind === 'step') {
      out.push({ fromMs: w.rate.atMs, toMs: null, label: `step from ${w.rate.ratePerSec}/s to ${w.rate.toRatePerSec}/s`, kind: 'workload' });
    } else {
      for (const t of triggerWindows(w.rate)) out.push({ fromMs: t.fromMs, toMs: t.toMs, label: t.label, kind: 'workload' });
    }
  }
  const leaf = scenario.leaf;
  if (leaf.kind === 'server') {
    for (const c of leaf.capacity ?? []) {
      const from = num(c.atMs);
      if (from === null) continue;
      const d = num(c.durationMs);
      out.push({
        fromMs: from,
        toMs: d === null ? null : from + d,
        label: c.concurrency === 0 ? 'outage (no workers)' : `capacity dip to ${c.concurrency} worker${c.concurrency === 1 ? '' : 's'}`,
        kind: 'capacity',
      });
    }
    for (const f of leaf.faults ?? []) {
      const from = num(f.fromMs) ?? 0;
      const pct = Math.round((f.probability ?? 1) * 1000) / 10;
      out.push({ fromMs: from, toMs: num(f.toMs), label: `faults: ${String(f.status)} to ${pct}% of requests`, kind: 'fault' });
    }
  }
  return out;
}

/**
 * The trigger windows of a service graph's scenario: its workload's, and those of every service's
 * fleet (a server's capacity windows and faults), each labelled with its service.
 */
export function graphTriggerWindows(scenario: Scenario): TriggerWindow[] {
  const services = scenario.graph?.services ?? [];
  if (services.length === 0) return scenarioTriggerWindows(scenario);
  const out = scenarioTriggerWindows({ ...scenario, leaf: { kind: 'script', script: [] } as unknown as Scenario['leaf'] });
  for (const s of services) {
    for (const w of scenarioTriggerWindows({ ...scenario, leaf: s.fleet })) if (w.kind !== 'workload') out.push({ ...w, label: `${s.name}: ${w.label}` });
  }
  return out;
}

/** Windows of several scenarios, each distinct window once (same bounds and label). */
export function distinctWindows(scenarios: Scenario[]): TriggerWindow[] {
  const seen = new Set<string>();
  const out: TriggerWindow[] = [];
  for (const s of scenarios) {
    for (const w of scenarioTriggerWindows(s)) {
      const k = `${w.fromMs}|${w.toMs}|${w.label}`;
      if (seen.has(k)) continue;
      seen.add(k);
      out.push(w);
    }
  }
  return out;
}
