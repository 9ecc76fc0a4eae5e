import { EXPORT_FORMATS, exportNameOf, exportPolicy } from '../check/index.js';
import { resolveScenario } from '../experiment/index.js';
import type { LayerConfiguration, TuneAnswer } from '../tune/tuneAnswer.js';
import { applyOverrides, type TuneProblem } from '../tune/tuneProblem.js';

/** The layers a search tunes, by index: those its space names (`stack.<i>.…`) and those its presets replace. */
function tunedLayers(problem: TuneProblem, names: readonly string[]): number[] {
  const tuned = new Set<number>();
  for (const d of problem.space) {
    const m = /^stack\.(\d+)\./.exec(d.path);
    if (m) tuned.add(Number(m[1]));
  }
  for (const p of problem.presets) {
    const i = names.indexOf(p.layer);
    if (i >= 0) tuned.add(i);
  }
  return [...tuned].sort((a, b) => a - b);
}

/**
 * The recommendation as configuration: each tuned layer's resolved policy in the first part's
 * scenario with the recommended overrides (tune's overrides apply to every part alike), written in
 * every format of `retrystorm export` with that format's warnings. Empty without a recommendation.
 */
export function recommendedConfiguration(problem: TuneProblem, answer: TuneAnswer): LayerConfiguration[] {
  const rec = answer.recommendation;
  const part = problem.parts[0];
  if (rec === null || part === undefined) return [];
  const resolved = resolveScenario(applyOverrides(part.scenario, rec.overrides[part.name] ?? {}), ['scenario']);
  if (!resolved.ok) throw new Error(`the recommended scenario does not resolve: ${resolved.errors.join('; ')}`);
  const stack = resolved.scenario.stack;
  return tunedLayers(problem, stack.map((l) => l.name)).flatMap((i) => {
    const layer = stack[i];
    if (layer === undefined) return [];
    return [
      {
        layer: layer.name,
        exports: EXPORT_FORMATS.map((format) => {
          const r = exportPolicy(layer.policy, format, { name: exportNameOf(layer.name) });
          return { format, text: r.text, warnings: r.warnings };
        }),
      },
    ];
  });
}
