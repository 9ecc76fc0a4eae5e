import type { Experiment } from './Experiment.js';
import { expandExperiment } from './expandExperiment.js';
import { parseJson } from './parseJson.js';
import { cloneJson } from './setPath.js';

/** A validated experiment, or every problem found in it. */
export type ParseExperimentResult = { ok: true; experiment: Experiment } | { ok: false; errors: string[] };

function hasQuickPatch(root: Record<string, unknown>): boolean {
  if (root.quick !== undefined) return true;
  const parts = root.parts;
  return Array.isArray(parts) && parts.some((p: unknown) => p !== null && typeof p === 'object' && (p as Record<string, unknown>).quick !== undefined);
}

/**
 * The dotted paths of every `__proto__` key in a JSON value. JSON.parse keeps such a key as an
 * ordinary field, but copying and schema parsing turn it into a prototype and lose it, so it is
 * refused up front as the unknown field it is.
 */
function protoKeyPaths(root: unknown): string[] {
  const found: string[] = [];
  const stack: Array<{ value: unknown; path: string }> = [{ value: root, path: '' }];
  while (stack.length > 0) {
    const { value, path } = stack.pop() as { value: unknown; path: string };
    if (value === null || typeof value !== 'object') continue;
    const entries = Array.isArray(value) ? value.map((v, i) => [String(i), v] as const) : Object.entries(value);
    for (let i = entries.length - 1; i >= 0; i--) {
      const [k, v] = entries[i] as readonly [string, unknown];
      const at = path === '' ? k : `${path}.${k}`;
      if (k === '__proto__' && !Array.isArray(value)) found.push(at);
      else stack.push({ value: v, path: at });
    }
  }
  return found;
}

/**
 * Validates an experiment file's root value completely: its structure, and the scenario of every
 * cell in normal mode and, when the file has a quick patch, in quick mode too (docs/experiments.md, "Experiment files").
 * Messages name dotted paths from the file's root; each appears once.
 */
export function parseExperiment(root: unknown): ParseExperimentResult {
  const object = root as Record<string, unknown>;
  const proto = protoKeyPaths(root);
  if (proto.length > 0) return { ok: false, errors: proto.map((p) => `${p} is not a known field`) };
  const normal = expandExperiment({ root: object }, { quick: false });
  const errors = normal.ok ? [] : [...normal.errors];
  const quick = root !== null && typeof root === 'object' && !Array.isArray(root) && hasQuickPatch(object);
  if (quick) {
    const quickResult = expandExperiment({ root: object }, { quick: true });
    if (!quickResult.ok) for (const e of quickResult.errors) if (!errors.includes(e)) errors.push(e);
  }
  if (!normal.ok || errors.length > 0) return { ok: false, errors };
  const plan = normal.plan;
  return {
    ok: true,
    experiment: {
      root: cloneJson(object),
      name: plan.name,
      description: plan.description,
      seed: plan.seed,
      hasQuick: quick,
      parts: plan.parts.map((p) => ({
        name: p.name,
        description: p.description,
        replications: p.replications,
        variants: p.variants,
        axes: p.axes,
        cells: p.cells.length,
      })),
    },
  };
}

/**
 * Every problem of an experiment file's root value (see `parseExperiment`); empty when it is
 * valid. For example `scenario.stack.1.policy.backoff.capMs must be >= baseMs (got 10 < 50)`.
 */
export function validateExperiment(root: unknown): string[] {
  const result = parseExperiment(root);
  return result.ok ? [] : result.errors;
}

/**
 * Parses and validates the text of an experiment file (no I/O). Every message starts with
 * `<source>: `; invalid JSON gives `<source>: invalid JSON at line L, column C: <reason>`.
 */
export function parseExperimentText(text: string, source: string): ParseExperimentResult {
  const json = parseJson(text, source);
  if (!json.ok) return { ok: false, errors: [json.error] };
  const result = parseExperiment(json.value);
  return result.ok ? result : { ok: false, errors: result.errors.map((e) => `${source}: ${e}`) };
}
