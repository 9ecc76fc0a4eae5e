import { describe, expect, it } from 'vitest';
import type { RiskSection } from '../../src/experiment/riskSchema.js';
import { estimateCellRisk, RiskInputError, riskProblems } from '../../src/riskModel/index.js';
import { cachedGraph, mm1, ruinRisk, smallGraph } from './riskScenarios.js';

const grid = (more: Partial<RiskSection>): RiskSection => ({
  importance: { metric: 'inFlight' },
  collapse: { metric: 'goodput', below: 0.5, forMs: 1000 },
  checkEveryMs: 100,
  ...more,
});

describe('riskProblems names the field and the rule', () => {
  it('a section the model can watch has none', () => {
    expect(riskProblems(mm1(100, 200), ruinRisk(10))).toEqual([]);
    expect(riskProblems(mm1(100, 200), grid({ collapse: { metric: 'goodput', windowMs: 500, below: 0.5, forMs: 1000 } }))).toEqual([]);
    expect(riskProblems(smallGraph(), grid({ importance: { metric: 'queued', service: 'backend' } }))).toEqual([]);
  });

  it('an unknown service, in a stack run and in a graph', () => {
    expect(riskProblems(mm1(100, 200), grid({ importance: { metric: 'inFlight', service: 'db' } }))).toEqual([
      'risk.importance.service: unknown service "db" (a stack run has one service, left unnamed)',
    ]);
    expect(riskProblems(smallGraph(), grid({ importance: { metric: 'inFlight', service: 'db' } }))).toEqual([
      'risk.importance.service: unknown service "db" (known: "frontend", "backend")',
    ]);
  });

  it('a windowed metric without a grid, or with a window that is not a multiple of it', () => {
    expect(riskProblems(mm1(100, 200), grid({ checkEveryMs: 0 }))).toEqual([
      'risk.checkEveryMs must be > 0 when collapse.metric is goodput (read over a window; 0, after every event, is for instant metrics only)',
    ]);
    expect(riskProblems(mm1(100, 200), grid({ collapse: { metric: 'goodput', windowMs: 250, below: 0.5, forMs: 0 } }))).toEqual([
      'risk.collapse.windowMs must be a multiple of checkEveryMs (got 250, checkEveryMs 100)',
    ]);
    expect(riskProblems(mm1(100, 200), grid({ importance: { metric: 'inFlight', windowMs: 200 } }))).toEqual([
      'risk.importance.windowMs is only for the metrics read over a window (missRatio, hitRatio, retryShare, goodput); inFlight is read at an instant',
    ]);
  });

  it('a window of decimal grid steps is a whole multiple (1000 ms over 0.1 ms), one of 2.5 steps is not', () => {
    expect(riskProblems(mm1(100, 200), grid({ checkEveryMs: 0.1, collapse: { metric: 'goodput', windowMs: 1000, below: 0.5, forMs: 0 } }))).toEqual([]);
    expect(riskProblems(mm1(100, 200), grid({ checkEveryMs: 0.1, collapse: { metric: 'goodput', windowMs: 0.25, below: 0.5, forMs: 0 } }))).toEqual([
      'risk.collapse.windowMs must be a multiple of checkEveryMs (got 0.25, checkEveryMs 0.1)',
    ]);
  });

  it('names the fields where the section is written (a part\'s own section)', () => {
    expect(riskProblems(smallGraph(), grid({ importance: { metric: 'inFlight', service: 'db', windowMs: 200 } }), 'parts.1.risk')).toEqual([
      'parts.1.risk.importance.windowMs is only for the metrics read over a window (missRatio, hitRatio, retryShare, goodput); inFlight is read at an instant',
      'parts.1.risk.importance.service: unknown service "db" (known: "frontend", "backend")',
    ]);
  });

  it('cache probes: a stack run has no cache; an unknown cache names those there are; cache with another metric', () => {
    const risk = grid({ importance: { metric: 'missRatio', cache: 'users' } });
    expect(riskProblems(mm1(100, 200), risk)).toEqual(['risk.importance.metric: missRatio needs a cache, and a stack run has none']);
    expect(() => estimateCellRisk(mm1(100, 200), risk, 1)).toThrow(RiskInputError);
    expect(riskProblems(cachedGraph(), risk)).toEqual(['risk.importance.cache: unknown cache "users" (known: "app.db")']);
    expect(riskProblems(cachedGraph(), grid({ importance: { metric: 'missRatio' } }))).toEqual([]);
    expect(riskProblems(cachedGraph(), grid({ importance: { metric: 'inFlight', cache: 'app.db' } }))).toEqual([
      'risk.importance.cache is only for missRatio and hitRatio (got metric inFlight)',
    ]);
  });
});
