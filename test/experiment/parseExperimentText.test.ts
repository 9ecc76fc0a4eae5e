import { describe, expect, it } from 'vitest';
import { parseExperimentText } from '../../src/experiment/index.js';

const valid = `{
  "$schema": "../schema.json",
  "name": "exp",
  "scenario": {
    "workload": { "kind": "burst", "clients": 10 },
    "stack": [{}],
    "leaf": { "kind": "occ" }
  }
}
`;

function errorsOf(text: string): string[] {
  const result = parseExperimentText(text, 'experiments/x.json');
  return result.ok ? [] : result.errors;
}

describe('parseExperimentText', () => {
  it('parses a valid file', () => {
    const result = parseExperimentText(valid, 'experiments/x.json');
    expect(result.ok).toBe(true);
    if (result.ok) {
      expect(result.experiment.name).toBe('exp');
      expect(result.experiment.root.$schema).toBe('../schema.json');
    }
  });

  it('ignores a byte-order mark', () => {
    expect(parseExperimentText(`\uFEFF${valid}`, 'x.json').ok).toBe(true);
  });

  it('gives the line and column of invalid JSON', () => {
    expect(errorsOf('{\n  "name": "exp",\n}\n')).toEqual([
      'experiments/x.json: invalid JSON at line 3, column 1: unexpected "}" after "," (trailing commas are not allowed in JSON)',
    ]);
    expect(errorsOf('{\n  "name": "exp"\n  "seed": 1\n}')).toEqual([
      'experiments/x.json: invalid JSON at line 3, column 3: unexpected "\\"" (expected "," or "}" after a property value)',
    ]);
    expect(errorsOf('{\n  "a": [1, 2,\n')).toEqual([
      'experiments/x.json: invalid JSON at line 3, column 1: unexpected end of input (expected a value)',
    ]);
    expect(errorsOf("{ 'name': 1 }")).toEqual([
      `experiments/x.json: invalid JSON at line 1, column 3: unexpected "'" (JSON strings use double quotes)`,
    ]);
    expect(errorsOf('{\n  // note\n}')).toEqual([
      'experiments/x.json: invalid JSON at line 2, column 3: unexpected "/" (comments are not allowed in JSON)',
    ]);
    expect(errorsOf('{ "seed": tru }')).toEqual([
      'experiments/x.json: invalid JSON at line 1, column 11: unexpected word "tru" (expected a value; strings need double quotes)',
    ]);
    expect(errorsOf('{ "name": "a\nb" }')).toEqual([
      'experiments/x.json: invalid JSON at line 1, column 11: unterminated string (line break inside a string)',
    ]);
    expect(errorsOf('{} {}')).toEqual(['experiments/x.json: invalid JSON at line 1, column 4: unexpected "{" after the end of the JSON value']);
    expect(errorsOf('')).toEqual(['experiments/x.json: invalid JSON at line 1, column 1: unexpected end of input (expected a value)']);
  });

  it('prefixes validation messages with the source', () => {
    expect(errorsOf(valid.replace('"clients": 10', '"clients": 0'))).toEqual([
      'experiments/x.json: scenario.workload.clients must be a positive integer (got 0)',
    ]);
  });
});
