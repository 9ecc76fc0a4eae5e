import { setTargetOf, type SetTarget } from '../experiment/index.js';
import { layerAt, type InterventionChange } from '../model/interventions.js';
import type { GraphService } from '../model/graph/ServiceGraph.js';
import type { Scenario } from '../model/scenario.js';
import { formatDuration } from '../policy/formatDuration.js';

/** A timed intervention as the time series mark it: a vertical rule at `atMs`, labelled in words. */
export interface InterventionMark {
  atMs: number;
  label: string;
}

/** A limit read back from JSON: an infinite one is missing (null). */
function limitWords(v: number | null | undefined): string {
  return typeof v === 'number' && Number.isFinite(v) ? String(v) : 'unlimited';
}

function sameTarget(t: SetTarget, c: InterventionChange): boolean {
  if (t.kind === 'warmShared') return c.kind === 'warm' && c.service === null && c.cache === t.cache;
  if (t.kind !== c.kind) return false;
  if (t.kind === 'policy' && c.kind === 'policy') return t.layer === c.layer && JSON.stringify(t.stack) === JSON.stringify(c.stack);
  if (t.kind === 'warm' || c.kind === 'warm') return t.kind === 'warm' && c.kind === 'warm' && t.call.service === c.service;
  return 'service' in t && 'service' in c && t.service === c.service;
}

/** What one change does, in words, given the policy fields its paths name (`maxAttempts`, `budget`, `backoff.baseMs`...). */
function changeWords(sc: Scenario, c: InterventionChange, fields: string[]): string {
  switch (c.kind) {
    case 'policy': {
      const name = layerAt(sc, c.stack, c.layer)?.name ?? `layer ${c.layer}`;
      const where = c.stack.kind === 'call' ? `${name} in ${c.stack.service}.${c.stack.endpoint}` : name;
      const top = [...new Set(fields.map((f) => f.split('.')[0] ?? f))];
      if (top.length === 1 && top[0] === 'maxAttempts') {
        const max = c.policy.maxAttempts;
        return max === 1 ? `retries off at ${where}` : `${where} makes at most ${limitWords(max === 'unlimited' ? null : max)} attempts`;
      }
      if (top.length === 1 && top[0] === 'budget') {
        const kinds = (c.policy.budget ?? []).map((b) => b.kind);
        return kinds.length === 0 ? `no retry budget at ${where}` : `retry budget ${kinds.join(' + ')} at ${where} (starts empty)`;
      }
      return `${where}: ${top.length > 0 ? top.join(', ') : 'policy'} changed`;
    }
    case 'queueLimit': {
      const limits = [...new Set(c.limits.map((l) => limitWords(l)))];
      return `queue limit ${limits.length === 1 ? limits[0] : limits.join('/')} at ${c.service ?? 'the server'}`;
    }
    case 'maxInFlight':
      return `${c.service} admits at most ${limitWords(c.value)} requests in flight`;
    case 'warm':
      return `${c.service === null ? `shared cache ${c.cache}` : `cache ${c.cache} at ${c.service}`} warmed with its ${c.keys} most popular keys`;
  }
}

/**
 * The marks of a scenario's timed interventions, in the order they apply: each at its moment,
 * labelled with when and what it does ("2 min: retries off at client").
 */
export function interventionMarks(sc: Scenario): InterventionMark[] {
  return (sc.interventions ?? []).map((iv) => {
    const targets = iv.paths.map((p) => ({ path: p, target: setTargetOf(p) }));
    const words = iv.changes.map((c) => {
      const fields = targets.flatMap(({ path, target }) => {
        if (target === undefined || !sameTarget(target, c)) return [];
        const at = path.split('.').indexOf('policy');
        return at < 0 ? [] : [path.split('.').slice(at + 1).join('.')].filter((f) => f !== '');
      });
      return changeWords(sc, c, fields);
    });
    return { atMs: iv.atMs, label: `${formatDuration(iv.atMs)}: ${words.join('; ')}` };
  });
}

/**
 * The flushes of a scenario's lookaside caches (their `flushAtMs`) as the time series mark them:
 * each at its moment, labelled with when and which cache ("1 min: cache db at app flushed"), in
 * time order.
 */
export function flushMarks(sc: Scenario): InterventionMark[] {
  const out: InterventionMark[] = [];
  // A scenario read back from a summary may be partial (written by an older version): what it lacks has no flush.
  for (const service of sc.graph?.services ?? []) {
    for (const endpoint of (service.endpoints as GraphService['endpoints'] | undefined) ?? []) {
      for (const step of endpoint.steps ?? []) {
        if (step.kind !== 'call') continue;
        for (const call of step.calls) {
          if (call.cache?.shared === true) continue;
          for (const atMs of call.cache?.flushAtMs ?? []) out.push({ atMs, label: `${formatDuration(atMs)}: cache ${call.cache?.name} at ${service.name} flushed` });
        }
      }
    }
  }
  // A shared tier is flushed once, for every call naming it.
  for (const tier of sc.graph?.caches ?? []) {
    for (const atMs of tier.flushAtMs ?? []) out.push({ atMs, label: `${formatDuration(atMs)}: shared cache ${tier.name} flushed` });
  }
  return out.sort((a, b) => a.atMs - b.atMs);
}

/**
 * The marks of several scenarios, each distinct mark once (same moment and label), in time order:
 * their timed interventions ({@link interventionMarks}), or what `marksOf` gives (e.g. {@link flushMarks}).
 */
export function distinctInterventionMarks(scenarios: readonly Scenario[], marksOf: (sc: Scenario) => InterventionMark[] = interventionMarks): InterventionMark[] {
  const seen = new Set<string>();
  const out: InterventionMark[] = [];
  for (const sc of scenarios) {
    for (const m of marksOf(sc)) {
      const k = `${m.atMs}|${m.label}`;
      if (seen.has(k)) continue;
      seen.add(k);
      out.push(m);
    }
  }
  return out.sort((a, b) => a.atMs - b.atMs);
}
