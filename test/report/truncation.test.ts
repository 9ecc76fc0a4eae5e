import { describe, expect, it } from 'vitest';
import { truncationCause } from '../../src/report/renderReport.js';
import { scenario, stats } from './helpers.js';

const open = scenario({ workload: { kind: 'open', rate: 100, durationMs: 1000, clients: 1, method: 'GET', permanentErrorFraction: 0 } });

describe('which bound stopped the truncated runs of a cell', () => {
  it('the in-flight cap, when every truncated run left maxInFlight + 1 operations unfinished', () => {
    // Half the runs stopped at the cap (1,001 unfinished), half drained (0).
    expect(truncationCause(0.5, { 'operations.unfinished': stats(500.5) }, open)).toBe('stopped at the in-flight cap (maxInFlight 1000)');
  });

  it('the in-flight cap or another bound, when the mean is above what the other bounds allow but below all at the cap', () => {
    // Of two truncated runs, one at the cap (1,001 unfinished) and one at the horizon with 1,000.
    expect(truncationCause(1, { 'operations.unfinished': stats(1000.5), simulatedMs: stats(3_600_000) }, open)).toBe(
      'stopped at the in-flight cap (maxInFlight 1000) or another bound',
    );
  });

  it('the horizon or the event cap otherwise, as before', () => {
    expect(truncationCause(1, { 'operations.unfinished': stats(1000), simulatedMs: stats(3_600_000) }, open)).toBe('stopped at the horizon (horizonMs 3600000)');
    expect(truncationCause(1, { 'operations.unfinished': stats(3), simulatedMs: stats(20) }, open)).toBe('stopped at the event cap (maxEvents 100000000)');
    // A burst is never stopped by the in-flight cap, whatever it left unfinished.
    expect(truncationCause(1, { 'operations.unfinished': stats(5000), simulatedMs: stats(20) }, scenario())).toBe('stopped at the event cap (maxEvents 100000000)');
    expect(truncationCause(1, {}, null)).toBe('stopped by a bound');
  });
});
