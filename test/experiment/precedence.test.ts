import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { expandExperiment, PRECEDENCE, type ExpandOptions, type ExperimentPlan } from '../../src/experiment/index.js';

type Json = Record<string, unknown>;

function scenario(clients = 10): Json {
  return { workload: { kind: 'burst', clients }, stack: [{ name: 'app', policy: { maxAttempts: 3 } }], leaf: { kind: 'server', serviceMs: 10 } };
}

function plan(root: Json, options: ExpandOptions = { quick: false }): ExperimentPlan {
  const r = expandExperiment({ root }, options);
  if (!r.ok) throw new Error(r.errors.join('\n'));
  return r.plan;
}

function errors(root: Json, options: ExpandOptions = { quick: false }): string[] {
  const r = expandExperiment({ root }, options);
  return r.ok ? [] : r.errors;
}

const clientsOf = (p: ExperimentPlan): unknown[] => p.parts.flatMap((part) => part.cells.map((c) => (c.scenario.workload as { clients: number }).clients));

describe('precedence: file < part < variant < sweep < --set, each later level winning', () => {
  it('is written down once in the documentation (README.md and docs/), in the order of PRECEDENCE', () => {
    const docs = new URL('../../docs/', import.meta.url);
    const pages = [new URL('../../README.md', import.meta.url), ...readdirSync(docs).filter((f) => f.endsWith('.md')).map((f) => new URL(f, docs))];
    const order = PRECEDENCE.map((level) => (level === 'set' ? '`--set`' : level)).join(' < ');
    expect(order).toBe('file < part < variant < sweep < `--set`');
    expect(pages.reduce((n, page) => n + readFileSync(page, 'utf8').split(order).length - 1, 0)).toBe(1);
  });

  it('file < part: a part\'s own replications win over the file\'s', () => {
    const p = plan({ name: 'x', replications: 5, parts: [{ name: 'own', scenario: scenario(), replications: 2 }, { name: 'inherits', scenario: scenario() }] });
    expect(p.parts.map((part) => part.replications)).toEqual([2, 5]);
  });

  it('part < variant: a variant\'s value wins over the part\'s scenario', () => {
    const p = plan({ name: 'x', parts: [{ name: 'a', scenario: scenario(10), variants: { same: {}, more: { 'workload.clients': 20 } } }] });
    expect(clientsOf(p)).toEqual([10, 20]);
  });

  it('variant < sweep: the sweep point is applied after the variant, and the two may not set one path (an error says so)', () => {
    const p = plan({ name: 'x', scenario: scenario(), variants: { v: { 'stack.0.policy.maxAttempts': 2 } }, sweep: { grid: { 'workload.clients': [1, 2] } } });
    expect(p.parts[0]?.cells.map((c) => [c.scenario.stack[0]?.policy.maxAttempts, (c.scenario.workload as { clients: number }).clients])).toEqual([
      [2, 1],
      [2, 2],
    ]);
    expect(errors({ name: 'x', scenario: scenario(), variants: { v: { 'workload.clients': 3 } }, sweep: { grid: { 'workload.clients': [1, 2] } } })).toEqual([
      'variants.v.workload.clients is also a sweep axis (sweep.grid)',
    ]);
  });

  it('sweep < --set: --set wins over a sweep axis on the same path', () => {
    const p = plan({ name: 'x', scenario: scenario(), sweep: { grid: { 'workload.clients': [1, 2] } } }, { quick: false, set: [['workload.clients', 7]] });
    expect(clientsOf(p)).toEqual([7, 7]);
  });

  it('variant < --set: --set wins over a variant on the same path', () => {
    const p = plan({ name: 'x', scenario: scenario(10), variants: { same: {}, more: { 'workload.clients': 20 } } }, { quick: false, set: [['workload.clients', 7]] });
    expect(clientsOf(p)).toEqual([7, 7]);
  });

  it('part < --set: --set replications overrides every part\'s own replications', () => {
    const root = { name: 'x', replications: 5, parts: [{ name: 'own', scenario: scenario(), replications: 2 }, { name: 'inherits', scenario: scenario() }] };
    expect(plan(root, { quick: false, set: [['replications', 1]] }).parts.map((part) => part.replications)).toEqual([1, 1]);
    // A later --set of one part's own still wins for that part.
    expect(plan(root, { quick: false, set: [['replications', 1], ['parts.own.replications', 3]] }).parts.map((part) => part.replications)).toEqual([3, 1]);
  });

  it('says why --set cannot give an experiment with parts the root\'s variants or sweep', () => {
    const root = { name: 'x', parts: [{ name: 'a', scenario: scenario() }] };
    expect(errors(root, { quick: false, set: [['variants.v.workload.clients', 3]] })).toEqual([
      '--set variants.v.workload.clients: cannot set variants.v.workload.clients: the experiment has parts, and variants is a field of each part (write parts.<name>.variants.v.workload.clients)',
    ]);
  });
});
