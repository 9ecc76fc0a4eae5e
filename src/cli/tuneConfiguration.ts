import { EXPORT_FORMATS, exportNameOf, exportPolicy } from '../check/index.js';
import { canonicalJson, resolveScenario } from '../experiment/index.js';
import type { LayerConfiguration, TuneAnswer } from '../tune/tuneAnswer.js';
import { resolvedLayerAt, tunedLayers } from '../tune/tunedLayers.js';
import { applyOverrides, type TuneProblem } from '../tune/tuneProblem.js';

/**
 * The recommendation as configuration: the resolved policy of each layer the search tunes (those
 * its space sets and its presets replace, in every stack: the scenario's, each workload's, each
 * call's) in the first part's scenario with the recommended overrides (tune's overrides apply to
 * every part alike), written in every format of `retrystorm export` with that format's warnings.
 * Layers of one name whose recommended policies are the same share one entry listing their paths.
 * Empty without a recommendation.
 */
export function recommendedConfiguration(problem: TuneProblem, answer: TuneAnswer): LayerConfiguration[] {
  const rec = answer.recommendation;
  const part = problem.parts[0];
  if (rec === null || part === undefined) return [];
  const resolved = resolveScenario(applyOverrides(part.scenario, rec.overrides[part.name] ?? {}), ['scenario']);
  if (!resolved.ok) throw new Error(`the recommended scenario does not resolve: ${resolved.errors.join('; ')}`);
  const groups = new Map<string, { name: string; policy: NonNullable<ReturnType<typeof resolvedLayerAt>>['policy']; layers: string[] }>();
  for (const tuned of tunedLayers(part, problem.space, problem.presets)) {
    const layer = resolvedLayerAt(resolved.scenario, tuned.path);
    if (layer === undefined) continue;
    const key = `${layer.name}\u0000${canonicalJson(layer.policy)}`;
    const group = groups.get(key) ?? { name: layer.name, policy: layer.policy, layers: [] };
    group.layers.push(tuned.path.join('.'));
    groups.set(key, group);
  }
  return [...groups.values()].map((g) => ({
    layer: g.name,
    layers: g.layers,
    exports: EXPORT_FORMATS.map((format) => {
      const r = exportPolicy(g.policy, format, { name: exportNameOf(g.name) });
      return { format, text: r.text, warnings: r.warnings };
    }),
  }));
}
