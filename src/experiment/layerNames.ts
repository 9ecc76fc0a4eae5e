import type { z } from 'zod';
import type { Dist, Layer, Policy } from '../model/scenario.js';
import { between } from '../policy/schema/between.js';

/** A layer as a stack schema parses it, before it is named. */
interface ParsedLayer {
  name?: string | undefined;
  instances?: unknown;
  hopMs?: Dist | undefined;
  policy: Policy;
}

/** The name of layer `i` of a stack: its own, or layer<i> (the one rule, for layers as written too). */
export function layerName(layer: { name?: unknown }, i: number): string {
  return typeof layer.name === 'string' ? layer.name : `layer${i}`;
}

/** Results key per-layer metrics by name: two layers of one stack with one name would overwrite each other. */
export function uniqueLayerNames(layers: readonly ParsedLayer[], ctx: z.RefinementCtx): void {
  const seen = new Map<string, number>();
  layers.forEach((l, i) => {
    const name = layerName(l, i);
    const first = seen.get(name);
    if (first !== undefined) between(ctx, [i, 'name'], `must be unique (layer ${first} is also called ${JSON.stringify(name)})`, name, [[first, 'name']]);
    else seen.set(name, i);
  });
}

/** The resolved layers of a stack: named, with one instance unless a number of instances is given. */
export function namedLayers(layers: readonly ParsedLayer[]): Layer[] {
  return layers.map((input, i): Layer => {
    const layer: Layer = { name: layerName(input, i), instances: typeof input.instances === 'number' ? input.instances : 1, policy: input.policy };
    if (input.hopMs !== undefined) layer.hopMs = input.hopMs;
    return layer;
  });
}
