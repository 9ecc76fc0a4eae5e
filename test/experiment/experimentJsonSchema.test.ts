import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { experimentJsonSchema, parseExperimentText } from '../../src/experiment/index.js';
import { jsonSchemaCheck } from '../helpers/jsonSchemaCheck.js';

function experimentFiles(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) return experimentFiles(path);
      return name.endsWith('.json') && name !== 'schema.json' ? [path] : [];
    });
}

type Json = Record<string, any>;

describe('experimentJsonSchema', () => {
  const schema = experimentJsonSchema() as Json;

  it('is plain JSON data', () => {
    expect(JSON.parse(JSON.stringify(schema))).toEqual(schema);
    expect(JSON.stringify(schema)).not.toContain('__schema');
  });

  it('describes the top level of an experiment file', () => {
    expect(schema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(schema.type).toBe('object');
    expect(schema.additionalProperties).toBe(false);
    expect(schema.required).toEqual(['name']);
    expect(Object.keys(schema.properties)).toEqual([
      '$schema',
      'schemaVersion',
      'name',
      'description',
      'seed',
      'scenario',
      'variants',
      'sweep',
      'replications',
      'quick',
      'parts',
      'tune',
      'risk',
      'report',
    ]);
    expect(schema.properties.name.pattern).toBe('^[a-z0-9][a-z0-9._-]*$');
    expect(schema.properties.seed).toMatchObject({ type: 'integer', default: 1 });
    expect(schema.properties.replications).toMatchObject({ type: 'integer', minimum: 1, default: 1 });
    expect(schema.properties.scenario.$ref).toBe('#/$defs/Scenario');
    // One definition of the risk section, for the file's and each part's own.
    expect(schema.properties.risk.$ref).toBe('#/$defs/RiskSection');
    expect(schema.properties.parts.items.properties.risk.$ref).toBe('#/$defs/RiskSection');
    expect(schema.$defs.RiskSection).toMatchObject({ type: 'object', required: ['importance', 'collapse', 'checkEveryMs'] });
  });

  it('describes scenarios with their defaults', () => {
    const defs = schema.$defs as Json;
    // A workload and a stack, or (a service graph) named workloads, each with its own stack.
    expect(defs.Scenario.required).toEqual([]);
    expect(defs.Scenario.anyOf).toEqual([
      { required: ['workload', 'stack'], not: { required: ['workloads'] } },
      { required: ['workloads', 'services'], not: { anyOf: [{ required: ['workload'] }, { required: ['stack'] }] } },
    ]);
    expect(defs.NamedWorkload.oneOf.map((o: Json) => o.required)).toEqual([
      ['kind', 'clients', 'stack'],
      ['kind', 'clients', 'durationMs', 'stack'],
      ['kind', 'rate', 'durationMs', 'stack'],
    ]);
    expect(defs.Scenario.properties.stack).toMatchObject({ type: 'array', minItems: 1, maxItems: 16 });
    expect(defs.Scenario.properties.horizonMs).toMatchObject({ type: 'number', exclusiveMinimum: 0, default: 3600000 });
    expect(defs.Policy.properties.maxAttempts.default).toBe(3);
    expect(defs.Policy.properties.maxAttempts.anyOf).toEqual([
      { type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER },
      { type: 'string', const: 'unlimited' },
    ]);
    expect(defs.Backoff.properties.kind.enum).toEqual([
      'none',
      'constant',
      'exponential',
      'full-jitter',
      'equal-jitter',
      'decorrelated-jitter',
      'linear',
      'aws-sdk-js',
      'envoy',
      'polly-decorrelated-v2',
      'randomized',
      'node-retry',
      'random-exponential',
    ]);
    expect(defs.Dist.anyOf[0]).toEqual({ type: 'number', minimum: 0 });
  });

  it('accepts a minimal file and rejects an unknown field or both scenario and parts', () => {
    const scenario = { workload: { kind: 'burst', clients: 10 }, stack: [{}], leaf: { kind: 'occ' } };
    expect(jsonSchemaCheck(schema, { name: 'exp', scenario })).toEqual([]);
    expect(jsonSchemaCheck(schema, { name: 'exp', scenario: { ...scenario, horizonMS: 5 } })).toContain('$.scenario.horizonMS: additional property');
    expect(jsonSchemaCheck(schema, { name: 'exp', scenario, parts: [{ name: 'a', scenario }] })).toContain('$: matches 0 of oneOf');
    const { workload: _w, stack: _s, ...noWorkload } = scenario;
    expect(jsonSchemaCheck(schema, { name: 'exp', scenario: noWorkload }).length).toBeGreaterThan(0);
    const services = { fe: { fleet: { kind: 'server', serviceMs: 1 }, endpoints: { get: {} } } };
    const named = { workloads: { web: { kind: 'burst', clients: 10, entry: { service: 'fe' }, stack: [{}] } }, services };
    expect(jsonSchemaCheck(schema, { name: 'exp', scenario: named })).toEqual([]);
    expect(jsonSchemaCheck(schema, { name: 'exp', scenario: { ...named, stack: [{}] } }).length).toBeGreaterThan(0);
  });

  it('accepts every shipped experiment file, each of which is valid', () => {
    const files = experimentFiles('experiments');
    expect(files).toContain(join('experiments', 'validation', 'mm1.json'));
    for (const file of files) {
      const text = readFileSync(file, 'utf8');
      expect(parseExperimentText(text, file)).toMatchObject({ ok: true });
      expect(jsonSchemaCheck(schema, JSON.parse(text))).toEqual([]);
    }
  });
});
