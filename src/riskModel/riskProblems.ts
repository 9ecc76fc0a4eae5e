import { riskSectionProblems, type RiskSection } from '../experiment/riskSchema.js';
import type { Scenario } from '../model/scenario.js';
import { probeProblems } from './probes.js';

/**
 * Problems of a risk section against a resolved scenario, each naming the field path under `at`
 * (`risk`, or where the section is written, e.g. `parts.1.risk`) and the rule: the section's own
 * rules across its fields (`riskSectionProblems`, the schema's), then probes the run cannot read
 * (an unknown service or cache, a metric the scenario's leaf or kind of run does not have). None:
 * `estimateCellRisk` can run it.
 */
export function riskProblems(scenario: Scenario, risk: RiskSection, at = 'risk'): string[] {
  return [
    ...riskSectionProblems(risk).map((p) => `${[at, ...p.path].join('.')} ${p.message}`),
    ...probeProblems(scenario, risk.importance, `${at}.importance`),
    ...probeProblems(scenario, risk.collapse, `${at}.collapse`),
  ];
}
