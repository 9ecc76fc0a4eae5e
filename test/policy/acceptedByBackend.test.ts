import { describe, expect, it } from 'vitest';
import { acceptedByBackend, isThrottlingOutcome } from '../../src/policy/classify.js';
import { Outcome } from '../../src/policy/outcome.js';

describe('what the backend accepted (SRE adaptive throttling) and what is throttling', () => {
  it('counts processed answers as accepted, refusals and missing answers not', () => {
    const accepted = Object.entries(Outcome)
      .filter(([, code]) => acceptedByBackend(code))
      .map(([name]) => name);
    expect(accepted).toEqual(['SUCCESS', 'S400', 'S404', 'S500', 'CONFLICT', 'ABORTED', 'INTERNAL', 'UNKNOWN']);
  });

  it('treats only 429 as a throttling error', () => {
    expect(Object.values(Outcome).filter(isThrottlingOutcome)).toEqual([Outcome.S429]);
  });
});
