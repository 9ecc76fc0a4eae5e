import type { PolicyInput } from '../policy/presets.js';

/** A layer read from a real configuration file. */
export interface ImportedLayer {
  /** The policy in experiment-file form (what a layer's `policy` object holds). */
  policy: PolicyInput;
  /** Where it comes from, in one line (`envoy-route.yaml: route "checkout" retry_policy`). */
  origin: string;
  /** How the configuration maps onto the model, and what the model leaves out. */
  notes: string[];
  /** A name for the layer when the stack file gives none (`grpc`, `envoy`, `aws-sdk`). */
  defaultName: string;
}
