import { describe, expect, it } from 'vitest';
import { canonicalJson, mergeValue, parseSetArg, setPath, splitExperimentPath, splitPath, ValidationError } from '../../src/experiment/index.js';

function problems(f: () => unknown): string[] {
  try {
    f();
  } catch (e) {
    if (e instanceof ValidationError) return e.problems;
    throw e;
  }
  throw new Error('expected a ValidationError');
}

describe('setPath', () => {
  it('indexes arrays with numeric segments', () => {
    const doc = { stack: [{ policy: { maxAttempts: 3 } }, { policy: { maxAttempts: 3 } }] };
    setPath(doc, 'stack.1.policy.maxAttempts', 5);
    expect(doc).toEqual({ stack: [{ policy: { maxAttempts: 3 } }, { policy: { maxAttempts: 5 } }] });
  });

  it('creates missing intermediate objects, but never a list entry', () => {
    const doc: Record<string, unknown> = {};
    setPath(doc, 'policy.backoff.kind', 'none');
    expect(doc).toEqual({ policy: { backoff: { kind: 'none' } } });
    expect(problems(() => setPath({}, 'leaf.faults.0.probability', 1))).toEqual([
      'cannot set leaf.faults.0.probability: leaf.faults has no entries, so there is no index 0 (an index past the end of a list is an error, not a new entry)',
    ]);
  });

  it('deep-merges an object value into an object already there', () => {
    const doc = { policy: { maxAttempts: 3, backoff: { kind: 'full-jitter', baseMs: 5 } } };
    setPath(doc, 'policy', { backoff: { capMs: 100 } });
    expect(doc).toEqual({ policy: { maxAttempts: 3, backoff: { kind: 'full-jitter', baseMs: 5, capMs: 100 } } });
  });

  it('replaces arrays and scalars', () => {
    const doc = { faults: [{ probability: 0.1 }, { probability: 0.2 }], clients: 10, bins: [1, 10] };
    setPath(doc, 'faults', [{ probability: 0.5 }]);
    setPath(doc, 'clients', { n: 1 });
    setPath(doc, 'bins', 5);
    expect(doc).toEqual({ faults: [{ probability: 0.5 }], clients: { n: 1 }, bins: 5 });
  });

  it('replaces an object whose kind or dist differs instead of merging', () => {
    const doc = { serviceMs: { dist: 'exponential', mean: 10 }, workload: { kind: 'burst', clients: 5 } };
    setPath(doc, 'serviceMs', { dist: 'constant', value: 3 });
    setPath(doc, 'workload', { kind: 'burst', startMs: 2 });
    expect(doc).toEqual({ serviceMs: { dist: 'constant', value: 3 }, workload: { kind: 'burst', clients: 5, startMs: 2 } });
  });

  it('rejects the index just past the end of an array instead of appending an entry', () => {
    const doc = { stack: [{ name: 'a' }] };
    expect(problems(() => setPath(doc, ['stack', 1, 'name'], 'b'))).toEqual([
      'cannot set stack.1.name: stack has 1 entry, so the index must be less than 1 (got 1; an index past the end of a list is an error, not a new entry)',
    ]);
    expect(doc).toEqual({ stack: [{ name: 'a' }] });
    setPath(doc, ['stack', 0, 'name'], 'b');
    expect(doc).toEqual({ stack: [{ name: 'b' }] });
  });

  it('copies the value, so later changes to the document do not reach it', () => {
    const value = { backoff: { kind: 'none' } };
    const a = { policy: {} as Record<string, unknown> };
    setPath(a, 'policy', value);
    setPath(a, 'policy.backoff.kind', 'constant');
    expect(value).toEqual({ backoff: { kind: 'none' } });
  });

  it('rejects paths it cannot follow with exact messages', () => {
    expect(problems(() => setPath({ stack: [{}] }, 'stack.3.name', 'x'))).toEqual([
      'cannot set stack.3.name: stack has 1 entry, so the index must be less than 1 (got 3; an index past the end of a list is an error, not a new entry)',
    ]);
    expect(problems(() => setPath({ stack: [] }, 'stack.first', 'x'))).toEqual([
      'cannot set stack.first: stack is an array, so the next segment must be an index (got "first")',
    ]);
    expect(problems(() => setPath({ workload: { clients: 5 } }, 'workload.clients.n', 1))).toEqual([
      'cannot set workload.clients.n: workload.clients is a number, not an object or an array',
    ]);
    expect(problems(() => setPath({}, '__proto__.polluted', 1))).toEqual([
      'cannot set __proto__.polluted: "__proto__" is not allowed in a path',
    ]);
    expect(problems(() => setPath({}, 'a..b', 1))).toEqual(['"a..b" is not a valid path (empty segment)']);
    expect(problems(() => setPath({}, '', 1))).toEqual(['the path is empty']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('splitPath and splitExperimentPath', () => {
  it('turns index segments into numbers', () => {
    expect(splitPath('stack.10.policy')).toEqual(['stack', 10, 'policy']);
    expect(splitPath('retryOn.01')).toEqual(['retryOn', '01']);
  });

  it('keeps the dotted keys of overrides and sweep axes whole', () => {
    expect(splitExperimentPath('sweep.grid.workload.clients')).toEqual(['sweep', 'grid', 'workload.clients']);
    expect(splitExperimentPath('sweep.zip.stack.0.policy.maxAttempts')).toEqual(['sweep', 'zip', 'stack.0.policy.maxAttempts']);
    expect(splitExperimentPath('variants.none.stack.0.policy.backoff.kind')).toEqual(['variants', 'none', 'stack.0.policy.backoff.kind']);
    expect(splitExperimentPath('parts.1.sweep.grid.workload.clients')).toEqual(['parts', 1, 'sweep', 'grid', 'workload.clients']);
    expect(splitExperimentPath('variants.none')).toEqual(['variants', 'none']);
    expect(splitExperimentPath('scenario.stack.0.name')).toEqual(['scenario', 'stack', 0, 'name']);
  });
});

describe('mergeValue', () => {
  it('merges objects recursively and replaces everything else', () => {
    expect(mergeValue({ a: { b: 1, c: [1, 2] }, d: 1 }, { a: { c: [3] }, e: 2 })).toEqual({ a: { b: 1, c: [3] }, d: 1, e: 2 });
    expect(mergeValue([1, 2], [3])).toEqual([3]);
    expect(mergeValue({ a: 1 }, 5)).toBe(5);
  });
});

describe('parseSetArg', () => {
  it('parses the value as JSON when it parses, otherwise keeps the string', () => {
    expect(parseSetArg('replications=5')).toEqual(['replications', 5]);
    expect(parseSetArg('scenario.workload.clients=50')).toEqual(['scenario.workload.clients', 50]);
    expect(parseSetArg('scenario.cancellation=true')).toEqual(['scenario.cancellation', true]);
    expect(parseSetArg('sweep.grid.workload.clients=[10,20]')).toEqual(['sweep.grid.workload.clients', [10, 20]]);
    expect(parseSetArg('scenario.leaf.serviceMs={"dist":"exponential","mean":5}')).toEqual([
      'scenario.leaf.serviceMs',
      { dist: 'exponential', mean: 5 },
    ]);
    expect(parseSetArg('variants.a.stack.0.policy.backoff.kind=full-jitter')).toEqual(['variants.a.stack.0.policy.backoff.kind', 'full-jitter']);
    expect(parseSetArg('name=a=b')).toEqual(['name', 'a=b']);
    expect(parseSetArg('description=')).toEqual(['description', '']);
  });

  it('rejects an argument without path=value', () => {
    expect(problems(() => parseSetArg('replications'))).toEqual(['--set expects path=value (got "replications")']);
    expect(problems(() => parseSetArg('=5'))).toEqual(['--set expects path=value, the path is empty (got "=5")']);
  });

  it('refuses a value nested deeper than files may nest, and keeps the limit itself', () => {
    const deep = (n: number): string => '['.repeat(n) + ']'.repeat(n);
    expect(problems(() => parseSetArg(`scenario.x=${deep(5000)}`))).toEqual([
      '--set scenario.x: nested too deep at line 1, column 1001: arrays and objects may nest at most 1000 levels',
    ]);
    const [, value] = parseSetArg(`scenario.x=${deep(1000)}`);
    let depth = 0;
    for (let v = value; Array.isArray(v); v = v[0] as unknown) depth++;
    expect(depth).toBe(1000);
  });
});

describe('canonicalJson', () => {
  it('sorts keys at every depth and drops undefined values', () => {
    expect(canonicalJson({ b: 1, a: { d: [2, { z: 1, y: 2 }], c: undefined } })).toBe('{"a":{"d":[2,{"y":2,"z":1}]},"b":1}');
  });
});
