import { describe, expect, it } from 'vitest';
import { EXPORT_FORMATS, exportPolicy, type ExportFormat, type ExportResult } from '../../src/check/index.js';
import { expandExperiment } from '../../src/experiment/index.js';
import { recommendedConfiguration } from '../../src/cli/tuneConfiguration.js';
import { renderTuneReport } from '../../src/report/tuneReport.js';
import { runTune } from '../../src/tune/runTune.js';
import { tuneAnswer } from '../../src/tune/tuneAnswer.js';
import { fixture, inThread, problemOf } from './helpers.js';

const pick = (r: ExportResult) => ({ text: r.text, warnings: r.warnings });

describe('the recommendation as configuration (retrystorm export)', () => {
  it("writes the tuned layer's recommended policy in every export format, with export's warnings", async () => {
    const problem = problemOf(fixture('known-optimum.json'));
    const answer = tuneAnswer(problem, await runTune(problem, inThread().evaluate));
    const config = recommendedConfiguration(problem, answer);
    expect(config.map((c) => c.layer)).toEqual(['client']);
    const exports = config[0]?.exports ?? [];
    expect(exports.map((e) => e.format)).toEqual([...EXPORT_FORMATS]);
    // The known optimum: 4 attempts, no backoff. Each text is export's own, and reads back as 4 attempts.
    const expanded = expandExperiment({ root: fixture('known-optimum.json') }, { quick: false, set: [['stack.0.policy.maxAttempts', 4]] });
    const policy = expanded.ok ? expanded.plan.parts[0]?.cells[0]?.scenario.stack[0]?.policy : undefined;
    if (policy === undefined) throw new Error('no policy');
    for (const e of exports) expect({ format: e.format, text: e.text, warnings: e.warnings }).toEqual({ format: e.format, ...pick(exportPolicy(policy, e.format as ExportFormat, { name: 'client' })) });
    const grpc = exports.find((e) => e.format === 'grpc-service-config');
    expect(JSON.parse(grpc?.text ?? '{}').methodConfig[0].retryPolicy.maxAttempts).toBe(4);
    const istio = exports.find((e) => e.format === 'istio');
    expect(istio?.text).toContain('attempts: 3');
    // No backoff cannot be written as Envoy's back-off: a warning, not a silent change.
    expect(istio?.warnings.some((w) => w.startsWith('backoff: no wait cannot be expressed in istio'))).toBe(true);
  });

  it('the report shows each format with its warnings', async () => {
    const problem = problemOf(fixture('known-optimum.json'));
    const answer = tuneAnswer(problem, await runTune(problem, inThread().evaluate));
    const rec = answer.recommendation;
    if (rec === null) throw new Error('expected a recommendation');
    rec.configuration = recommendedConfiguration(problem, answer);
    const html = renderTuneReport(answer, { description: '', version: 'test', date: '2026-01-01T00:00:00Z', runTimeMs: 1, assets: { mode: 'shared', base: '../assets/' } });
    for (const format of EXPORT_FORMATS) expect(html).toContain(`<summary>client as ${format}`);
    const istio = rec.configuration.flatMap((c) => c.exports).find((e) => e.format === 'istio');
    expect(html).toContain(`<summary>client as istio (${istio?.warnings.length} warning`);
    expect(html).toContain('<meta name="generator" content="retrystorm test">');
    expect(html.indexOf('../assets/vega.min.js')).toBeLessThan(html.indexOf('</head>'));
  });
});
