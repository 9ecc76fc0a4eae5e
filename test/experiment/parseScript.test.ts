import { describe, expect, it } from 'vitest';
import { MAX_SCRIPT_MS, parseScript, resolveScenario, ValidationError } from '../../src/experiment/index.js';

describe('parseScript', () => {
  it('reads status:duration entries, ra= hints, hang and repeats', () => {
    expect(parseScript('503:250, 503:100:ra=2000,timeout:30,hang')).toEqual([
      { status: 503, durationMs: 250 },
      { status: 503, durationMs: 100, retryAfterMs: 2000 },
      { status: 'timeout', durationMs: 30 },
      { status: 'hang', durationMs: 0 },
    ]);
  });

  it('expands a repeated entry into that many entries', () => {
    expect(parseScript('503:250*3,200:10')).toEqual([
      { status: 503, durationMs: 250 },
      { status: 503, durationMs: 250 },
      { status: 503, durationMs: 250 },
      { status: 200, durationMs: 10 },
    ]);
  });

  it('takes a missing duration as 0 and accepts fractions', () => {
    expect(parseScript('429:ra=1000,200:0.5')).toEqual([
      { status: 429, durationMs: 0, retryAfterMs: 1000 },
      { status: 200, durationMs: 0.5 },
    ]);
  });

  it('lists every bad entry with its position', () => {
    let error: unknown;
    try {
      parseScript('503:250*0,foo,hang:3,503:abc,,200:1:2,503:1:ra=x');
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).problems).toEqual([
      'script entry 1 "503:250*0": repeat count must be an integer from 1 to 100000 (got "0")',
      'script entry 2 "foo": status must be one of 200, 400, 404, 409, 429, 500, 502, 503, 504, timeout, reset, connect-failure, refused-stream, cancelled, unavailable, resource-exhausted, deadline-exceeded, aborted, internal, unknown, hang (got "foo")',
      'script entry 3 "hang:3": "hang" takes no duration or ra= (it never answers)',
      'script entry 4 "503:abc": durationMs must be a number of ms from 0 to 1,000,000,000,000 (got "abc")',
      'script entry 5 "": is empty',
      'script entry 6 "200:1:2": unexpected "2" (expected status[:durationMs][:ra=retryAfterMs][*count])',
      'script entry 7 "503:1:ra=x": ra= (retryAfterMs) must be a number of ms from 0 to 1,000,000,000,000 (got "x")',
    ]);
  });

  it('takes durations and Retry-After up to MAX_SCRIPT_MS, in decimal or exponent notation, and refuses more with the rule', () => {
    expect(MAX_SCRIPT_MS).toBe(1e12);
    expect(parseScript('503:2e3:ra=1e12,200:1000000000000')).toEqual([
      { status: 503, durationMs: 2000, retryAfterMs: 1e12 },
      { status: 200, durationMs: 1e12 },
    ]);
    expect(() => parseScript('503:0:ra=1e308,503:100000000000000000000,429:ra=1000000000001')).toThrow(
      new ValidationError([
        'script entry 1 "503:0:ra=1e308": ra= (retryAfterMs) must be a number of ms from 0 to 1,000,000,000,000 (got "1e308")',
        'script entry 2 "503:100000000000000000000": durationMs must be a number of ms from 0 to 1,000,000,000,000 (got "100000000000000000000")',
        'script entry 3 "429:ra=1000000000001": ra= (retryAfterMs) must be a number of ms from 0 to 1,000,000,000,000 (got "1000000000001")',
      ]),
    );
  });

  it('holds the object form of a script entry to the same bound', () => {
    const scenario = (entry: Record<string, unknown>) => ({ workload: { kind: 'burst', clients: 1 }, stack: [{}], leaf: { kind: 'script', script: [entry] } });
    const tooLong = resolveScenario(scenario({ status: 503, durationMs: 1e308, retryAfterMs: 1e20 }));
    expect(tooLong.ok ? [] : tooLong.errors).toEqual([
      'scenario.leaf.script.0.durationMs must be between 0 and 1000000000000 (got 1e+308)',
      'scenario.leaf.script.0.retryAfterMs must be between 0 and 1000000000000 (got 100000000000000000000)',
    ]);
    expect(resolveScenario(scenario({ status: 503, durationMs: 1e12, retryAfterMs: 5 })).ok).toBe(true);
  });

  it('rejects an empty script', () => {
    expect(() => parseScript('  ')).toThrow('script is empty (expected entries like "503:250,200:10")');
  });
});
