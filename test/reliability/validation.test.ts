import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli, cliUnprivileged, permissionsApply, tempDir, validExperiment, withScenario, writeExperiment } from '../helpers/reliability.js';

/**
 * Bad input through the command line, beyond test/cli/badInput.test.ts and the
 * validateExperiment table: every message is exact, each problem gets one line, all problems are
 * reported at once, the exit code is 2 and no stack trace is printed. Last, inputs that validation
 * lets through although they cannot run as written.
 */

/** JSON text that cannot say Infinity: `1e999` parses to it. */
const INF = '__INFINITY__';
const NEG_INF = '__MINUS_INFINITY__';
function text(body: unknown): string {
  return JSON.stringify(body, null, 2).replace(`"${INF}"`, '1e999').replace(`"${NEG_INF}"`, '-1e999');
}

const files: Array<[string, unknown, string[]]> = [
  // Negative, zero or non-finite times.
  ['a negative per-attempt timeout', withScenario((s) => (s.stack[0].policy.perAttemptTimeoutMs = -1)), ['scenario.stack.0.policy.perAttemptTimeoutMs must be > 0 (got -1)']],
  ['a zero per-attempt timeout', withScenario((s) => (s.stack[0].policy.perAttemptTimeoutMs = 0)), ['scenario.stack.0.policy.perAttemptTimeoutMs must be > 0 (got 0)']],
  ['a negative deadline', withScenario((s) => (s.workload.deadlineMs = -10)), ['scenario.workload.deadlineMs must be >= 0 (got -10)']],
  ['a negative backoff base', withScenario((s) => (s.stack[0].policy.backoff = { baseMs: -5 })), ['scenario.stack.0.policy.backoff.baseMs must be >= 0 (got -5)']],
  ['a negative network hop', withScenario((s) => (s.network = { hopMs: -1 })), ['scenario.network.hopMs must be >= 0 (got -1)']],
  ['a negative hop of one layer', withScenario((s) => (s.stack[0].hopMs = -2)), ['scenario.stack.0.hopMs must be >= 0 (got -2)']],
  ['an infinite horizon (1e999)', withScenario((s) => (s.horizonMs = INF)), ['scenario.horizonMs must be a finite number > 0 (got Infinity)']],
  ['a zero horizon', withScenario((s) => (s.horizonMs = 0)), ['scenario.horizonMs must be > 0 (got 0)']],
  ['a service time of -1e999', withScenario((s) => (s.leaf.serviceMs = NEG_INF)), ['scenario.leaf.serviceMs must be a number >= 0 or a distribution object (got -Infinity)']],
  ['a negative warm-up', withScenario((s) => (s.warmupMs = -1)), ['scenario.warmupMs must be >= 0 (got -1)']],
  ['a negative think time', withScenario((s) => (s.workload = { kind: 'closed', clients: 2, thinkMs: -1, durationMs: 100 })), ['scenario.workload.thinkMs must be >= 0 (got -1)']],
  ['a capacity dip before t = 0', withScenario((s) => (s.leaf.capacity = [{ atMs: -1, durationMs: 10, concurrency: 1 }])), ['scenario.leaf.capacity.0.atMs must be >= 0 (got -1)']],
  ['a negative Retry-After on a fault', withScenario((s) => (s.leaf.faults = [{ probability: 0.5, retryAfterMs: -1 }])), ['scenario.leaf.faults.0.retryAfterMs must be >= 0 (got -1)']],
  ['a negative Retry-After on shed answers', withScenario((s) => (s.leaf.shedRetryAfterMs = -1)), ['scenario.leaf.shedRetryAfterMs must be >= 0 (got -1)']],
  ['a zero time-series bin', withScenario((s) => (s.metrics = { timeSeriesBinMs: 0 })), ['scenario.metrics.timeSeriesBinMs must be > 0 (got 0)']],
  ['a negative clustering bin', withScenario((s) => (s.metrics = { clusteringBinMs: [-1] })), ['scenario.metrics.clusteringBinMs.0 must be > 0 (got -1)']],
  ['a negative uniform minimum', withScenario((s) => (s.leaf.serviceMs = { dist: 'uniform', min: -1, max: 5 })), ['scenario.leaf.serviceMs.min must be >= 0 (got -1)']],
  ['a negative normal sd', withScenario((s) => (s.leaf.serviceMs = { dist: 'normal', mean: 5, sd: -1 })), ['scenario.leaf.serviceMs.sd must be >= 0 (got -1)']],
  ['a zero lognormal mean', withScenario((s) => (s.leaf.serviceMs = { dist: 'lognormal', mean: 0, sd: 1 })), ['scenario.leaf.serviceMs.mean must be > 0 (got 0)']],
  // Rates <= 0.
  ['a negative rate', withScenario((s) => (s.workload = { kind: 'open', rate: -5, durationMs: 1000 })), ['scenario.workload.rate must be > 0 (got -5)']],
  ['a negative steady rate', withScenario((s) => (s.workload = { kind: 'open', rate: { kind: 'steady', ratePerSec: -1 }, durationMs: 1000 })), ['scenario.workload.rate.ratePerSec must be > 0 (got -1)']],
  ['an infinite rate (1e999)', withScenario((s) => (s.workload = { kind: 'open', rate: INF, durationMs: 1000 })), ['scenario.workload.rate must be a rate > 0 or a rate schedule object (got Infinity)']],
  [
    'a negative spike rate',
    withScenario((s) => (s.workload = { kind: 'open', rate: { kind: 'spike', ratePerSec: 10, atMs: 0, durationMs: 10, spikeRatePerSec: -1 }, durationMs: 1000 })),
    ['scenario.workload.rate.spikeRatePerSec must be >= 0 (got -1)'],
  ],
  [
    'a negative rate in a ramp',
    withScenario((s) => (s.workload = { kind: 'open', rate: { kind: 'ramp', points: [{ atMs: 0, ratePerSec: -1 }, { atMs: 5, ratePerSec: 1 }] }, durationMs: 1000 })),
    ['scenario.workload.rate.points.0.ratePerSec must be >= 0 (got -1)'],
  ],
  // maxAttempts neither a positive integer nor "unlimited".
  ...([
    [2.5, '2.5'],
    [-1, '-1'],
    ['infinite', '"infinite"'],
    ['3', '"3"'],
    [null, 'null'],
    [INF, 'Infinity'],
  ] as Array<[unknown, string]>).map(([value, shown]): [string, unknown, string[]] => [
    `maxAttempts ${shown}`,
    withScenario((s) => (s.stack[0].policy.maxAttempts = value)),
    [`scenario.stack.0.policy.maxAttempts must be a positive integer or "unlimited" (got ${shown})`],
  ]),
  // Probabilities outside [0, 1], ticks, other ranges.
  ['a negative fault probability', withScenario((s) => (s.leaf.faults = [{ probability: -0.1 }])), ['scenario.leaf.faults.0.probability must be between 0 and 1 (got -0.1)']],
  ['a bad-input fraction of 2', withScenario((s) => (s.workload.permanentErrorFraction = 2)), ['scenario.workload.permanentErrorFraction must be between 0 and 1 (got 2)']],
  ['a negative bad-input fraction', withScenario((s) => (s.workload.permanentErrorFraction = -0.5)), ['scenario.workload.permanentErrorFraction must be between 0 and 1 (got -0.5)']],
  ['a tick given as a word', withScenario((s) => (s.stack[0].policy.tickMs = 'fast')), ['scenario.stack.0.policy.tickMs must be a number >= 0 (got "fast")']],
  ['a multiplier below 1', withScenario((s) => (s.stack[0].policy.backoff = { multiplier: 0.5 })), ['scenario.stack.0.policy.backoff.multiplier must be >= 1 (got 0.5)']],
  ['a negative exponent offset', withScenario((s) => (s.stack[0].policy.backoff = { exponentOffset: -1 })), ['scenario.stack.0.policy.backoff.exponentOffset must be an integer >= 0 (got -1)']],
  ['an event cap of 0', withScenario((s) => (s.maxEvents = 0)), ['scenario.maxEvents must be a positive integer (got 0)']],
  ['a fractional event cap', withScenario((s) => (s.maxEvents = 1.5)), ['scenario.maxEvents must be a positive integer (got 1.5)']],
  ['an in-flight cap of 0', withScenario((s) => (s.maxInFlight = 0)), ['scenario.maxInFlight must be a positive integer (got 0)']],
  ['zero instances', withScenario((s) => (s.stack[0].instances = 0)), ['scenario.stack.0.instances must be a positive integer (got 0)']],
  ['a fractional client count', withScenario((s) => (s.workload.clients = 1.5)), ['scenario.workload.clients must be a positive integer (got 1.5)']],
  ['a negative capacity', withScenario((s) => (s.leaf.capacity = [{ atMs: 1, durationMs: 10, concurrency: -1 }])), ['scenario.leaf.capacity.0.concurrency must be an integer >= 0 (got -1)']],
  ['a slow-down factor of 0', withScenario((s) => (s.leaf.degradation = { kind: 'threshold', inFlightAbove: 2, factor: 0 })), ['scenario.leaf.degradation.factor must be >= 1 (got 0)']],
  ['fractional replications', { ...validExperiment(), replications: 1.5 }, ['replications must be a positive integer (got 1.5)']],
  ['a fractional seed', { ...validExperiment(), seed: 1.5 }, ['seed must be an integer (got 1.5)']],
  // Words and types.
  ['an unknown deadline mode', withScenario((s) => (s.stack[0].policy.deadlineMode = 'fresh-ish')), ['scenario.stack.0.policy.deadlineMode must be one of propagate, fresh, none (got "fresh-ish")']],
  ['an unknown idempotency rule', withScenario((s) => (s.stack[0].policy.idempotency = 'sometimes')), ['scenario.stack.0.policy.idempotency must be one of http, always, never (got "sometimes")']],
  ['an unknown queue discipline', withScenario((s) => (s.leaf.discipline = 'random')), ['scenario.leaf.discipline must be one of fifo, lifo (got "random")']],
  ['cancellation given as a word', withScenario((s) => (s.cancellation = 'yes')), ['scenario.cancellation must be true or false (got "yes")']],
  ['a stack that is not a list', withScenario((s) => (s.stack = { name: 'x' })), ['scenario.stack must be a list of layers (got {"name":"x"})']],
  ['retryable classes given as a word', withScenario((s) => (s.stack[0].policy.retryOn = 'timeout')), ['scenario.stack.0.policy.retryOn must be a list of outcome classes (got "timeout")']],
  ['a description that is not text', { ...validExperiment(), description: 5 }, ['description must be a string (got 5)']],
  // Inconsistent combinations.
  [
    'hedging beside retries',
    withScenario((s) => (s.stack[0].policy = { maxAttempts: 3, hedging: { maxAttempts: 3, hedgingDelayMs: 100 } })),
    ['scenario.stack.0.policy.hedging cannot be combined with maxAttempts above 1 (got maxAttempts 3; a call has a retry policy or a hedging policy, not both: gRPC A6)'],
  ],
  [
    'a pushback hint beside a shed Retry-After',
    withScenario((s) => Object.assign(s.leaf, { pushbackMs: 100, shedRetryAfterMs: 1000 })),
    ['scenario.leaf.pushbackMs cannot be combined with shedRetryAfterMs (a shed answer carries one hint: Retry-After or gRPC pushback)'],
  ],
  [
    'a hanging script with nothing to end the wait',
    withScenario((s) => (s.leaf = { kind: 'script', script: ['hang'] })),
    ['scenario.leaf.script contains "hang" (or "timeout" without a duration) but no layer sets policy.perAttemptTimeoutMs and the workload has no deadlineMs (the operation would never end)'],
  ],
  ['a fault window that ends before it starts', withScenario((s) => (s.leaf.faults = [{ fromMs: 10, toMs: 5, probability: 0.5 }])), ['scenario.leaf.faults.0.toMs must be > fromMs (got 5 <= 10)']],
  ['a uniform maximum below its minimum', withScenario((s) => (s.leaf.serviceMs = { dist: 'uniform', min: 5, max: 1 })), ['scenario.leaf.serviceMs.max must be >= min (got 1 < 5)']],
  ['time-seeded jitter without a resolution', withScenario((s) => (s.stack[0].policy.seeding = { kind: 'time-seeded' })), ['scenario.stack.0.policy.seeding.resolutionMs is required']],
  ['a rate on a burst workload', withScenario((s) => (s.workload.rate = 5)), ['scenario.workload.rate is not a known field']],
  ['an open loop without a duration', withScenario((s) => (s.workload = { kind: 'open', rate: 5 })), ['scenario.workload.durationMs is required']],
  ['both scenario and parts', { ...validExperiment(), parts: [{ name: 'a', scenario: validExperiment().scenario }] }, ['parts cannot be combined with scenario (an experiment has one scenario, or parts)']],
  [
    'zip axes of different lengths',
    { ...validExperiment(), sweep: { zip: { 'workload.clients': [1, 2], 'leaf.serviceMs': [1] } } },
    ['sweep.zip.leaf.serviceMs has 1 values but zip.workload.clients has 2 (zip axes move together and need the same length)'],
  ],
  [
    'a sweep over a layer that does not exist',
    { ...validExperiment(), sweep: { grid: { 'stack.3.policy.maxAttempts': [1, 2] } } },
    ['sweep.grid.stack.3.policy.maxAttempts: cannot set stack.3.policy.maxAttempts: stack has 1 entry, so the index must be less than 1 (got 3; an index past the end of a list is an error, not a new entry)'],
  ],
  ['a bad value on a sweep axis', { ...validExperiment(), sweep: { grid: { 'workload.clients': [1, -1] } } }, ['sweep.grid.workload.clients: scenario.workload.clients must be a positive integer (got -1)']],
  ['a bad value in a variant', { ...validExperiment(), variants: { a: { 'stack.0.policy.maxAttempts': 0 } } }, ['variants.a: scenario.stack.0.policy.maxAttempts must be a positive integer or "unlimited" (got 0)']],
  ['a bad value in the quick patch', { ...validExperiment(), quick: { replications: -1 } }, ['quick: replications must be a positive integer (got -1)']],
  // Unknown fields, with the nearest known one.
  [
    'misspelt top-level fields',
    { ...validExperiment(), replication: 3, varients: {}, sweep: { grd: {} } },
    [
      'sweep.grd is not a known field (did you mean "grid"?)',
      'replication is not a known field (did you mean "replications"?)',
      'varients is not a known field (did you mean "variants"?)',
    ],
  ],
  ['a misspelt path in a variant', { ...validExperiment(), variants: { a: { 'stack.0.policy.maxAtempts': 3 } } }, ['variants.a: scenario.stack.0.policy.maxAtempts is not a known field (did you mean "maxAttempts"?)']],
  ['a misspelt sweep axis', { ...validExperiment(), sweep: { grid: { 'workload.clinets': [1, 2] } } }, ['sweep.grid.workload.clinets: scenario.workload.clinets is not a known field (did you mean "clients"?)']],
  // Schema version and the root value.
  ['schemaVersion given as text', { ...validExperiment(), schemaVersion: '1' }, ['schemaVersion "1" is not supported (this version reads 1)']],
  ['schemaVersion 0', { ...validExperiment(), schemaVersion: 0 }, ['schemaVersion 0 is not supported (this version reads 1)']],
  ['a null root', null, ['the experiment must be a JSON object (got null)']],
  ['a string root', 'hello', ['the experiment must be a JSON object (got "hello")']],
  ['a number root', 42, ['the experiment must be a JSON object (got 42)']],
];

describe('bad experiment files through `run` and `validate`: exit code 2, the exact messages, no stack trace', () => {
  const dir = tempDir();
  it.each(files)('%s', async (name, body, messages) => {
    const file = writeExperiment(dir, `${name.replace(/\W+/g, '-')}.json`, text(body));
    const expected = messages.map((m) => `error: ${file}: ${m}\n`).join('');
    for (const command of ['run', 'validate']) {
      const r = await cli(command === 'run' ? ['run', file, '--out', join(dir, 'out')] : ['validate', file]);
      expect({ command, code: r.code, out: r.out, err: r.err }).toEqual({ command, code: 2, out: '', err: expected });
    }
  });

  it('a schemaVersion of 1 is accepted', async () => {
    const file = writeExperiment(dir, 'version-1.json', { ...validExperiment(), schemaVersion: 1 });
    expect((await cli(['validate', file])).code).toBe(0);
  });

  it('reports every problem of a file at once: top level, scenario, variants and sweep', async () => {
    const body = {
      name: 'Bad Name',
      seed: 'x',
      replications: 0,
      colour: 'red',
      scenario: {
        workload: { kind: 'open', rate: -1, durationMs: 1000 },
        stack: [{ name: 'a', policy: { maxAttempts: 0, backoff: { baseMs: 50, capMs: 10 }, tickMs: -1 } }],
        leaf: { kind: 'server', serviceMs: -3, faults: [{ probability: 2 }] },
        horizonMS: 5,
      },
      variants: { v: { 'stack.0.policy.maxAtempts': 2 } },
      sweep: { grid: { 'workload.durationMs': [100, -100] } },
    };
    const file = writeExperiment(dir, 'many.json', body);
    const r = await cli(['run', file, '--out', join(dir, 'out')]);
    expect(r.code).toBe(2);
    expect(r.out).toBe('');
    expect(r.err).toBe(
      [
        'name must be a lowercase slug like "aws-jitter-2015" (got "Bad Name")',
        'seed must be an integer (got "x")',
        'replications must be a positive integer (got 0)',
        'colour is not a known field',
        'scenario.workload.rate must be > 0 (got -1)',
        'scenario.stack.0.policy.maxAttempts must be a positive integer or "unlimited" (got 0)',
        'scenario.stack.0.policy.backoff.capMs must be >= baseMs (got 10 < 50)',
        'scenario.stack.0.policy.tickMs must be >= 0 (got -1)',
        'variants.v: scenario.stack.0.policy.maxAtempts is not a known field (did you mean "maxAttempts"?)',
        'scenario.leaf.serviceMs must be >= 0 (got -3)',
        'scenario.leaf.faults.0.probability must be between 0 and 1 (got 2)',
        'scenario.horizonMS is not a known field (did you mean "horizonMs"?)',
        'sweep.grid.workload.durationMs: scenario.workload.durationMs must be > 0 (got -100)',
      ]
        .map((m) => `error: ${file}: ${m}\n`)
        .join(''),
    );
    expect((await cli(['validate', file])).err).toBe(r.err);
  });
});

/** Invalid JSON and where it goes wrong (line and column, 1-based). */
const brokenJson: Array<[string, string, string]> = [
  ['an empty file', '', 'invalid JSON at line 1, column 1: unexpected end of input (expected a value)'],
  ['only blank lines', '   \n  ', 'invalid JSON at line 2, column 3: unexpected end of input (expected a value)'],
  ['a trailing comma in an object', '{\n  "name": "x",\n}', 'invalid JSON at line 3, column 1: unexpected "}" after "," (trailing commas are not allowed in JSON)'],
  ['a trailing comma in a list', '{"a": [1, 2,]}', 'invalid JSON at line 1, column 13: unexpected "]" after "," (trailing commas are not allowed in JSON)'],
  ['a comment', '{\n  // hi\n  "name": "x"\n}', 'invalid JSON at line 2, column 3: unexpected "/" (comments are not allowed in JSON)'],
  ['single quotes', "{'name': 'x'}", `invalid JSON at line 1, column 2: unexpected "'" (JSON strings use double quotes)`],
  ['an unterminated string', '{"name": "x', 'invalid JSON at line 1, column 10: unterminated string'],
  ['a missing colon', '{"name" "x"}', 'invalid JSON at line 1, column 9: unexpected "\\"" (expected ":" after the property name)'],
  ['NaN', '{"name": NaN}', 'invalid JSON at line 1, column 10: unexpected word "NaN" (expected a value; strings need double quotes)'],
  ['two values', '{} {}', 'invalid JSON at line 1, column 4: unexpected "{" after the end of the JSON value'],
  ['CRLF line ends', '{\r\n  "name": "x",\r\n  "seed": 1,,\r\n}', 'invalid JSON at line 3, column 13: unexpected "," (expected a property name in double quotes)'],
];

describe('invalid JSON names the line and column', () => {
  const dir = tempDir();
  it.each(brokenJson)('%s', async (name, body, message) => {
    const file = writeExperiment(dir, `${name.replace(/\W+/g, '-')}.json`, body);
    const r = await cli(['run', file]);
    expect(r).toEqual({ code: 2, out: '', err: `error: ${file}: ${message}\n` });
  });

  it('a byte-order mark before valid JSON is accepted', async () => {
    const file = writeExperiment(dir, 'bom.json', `\uFEFF${JSON.stringify(validExperiment())}`);
    const r = await cli(['validate', file]);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^ok: valid\n/);
  });
});

describe('files that cannot be read', () => {
  it('a directory given as the file to validate', async () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'e.json'));
    const r = await cli(['validate', join(dir, 'e.json')]);
    expect(r).toEqual({ code: 2, out: '', err: `error: ${join(dir, 'e.json')}: cannot read (is a directory)\n` });
  });

  it('a path through a file', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'plain'), 'x');
    const path = join(dir, 'plain', 'e.json');
    const r = await cli(['validate', path]);
    expect(r).toEqual({ code: 2, out: '', err: `error: ${path}: cannot read (a part of the path is not a directory)\n` });
  });

  it('a missing file for `validate`', async () => {
    const path = join(tempDir(), 'missing.json');
    expect(await cli(['validate', path])).toEqual({ code: 2, out: '', err: `error: ${path}: cannot read (no such file)\n` });
  });

  // As root, the command runs as nobody so that the permission applies.
  it.skipIf(!permissionsApply())('a file without read permission', async () => {
    const dir = tempDir();
    chmodSync(dir, 0o777);
    const file = writeExperiment(dir, 'secret.json', validExperiment());
    chmodSync(file, 0o000);
    const r = await cliUnprivileged(['run', file, '--out', join(dir, 'out')]);
    expect(r).toEqual({ code: 2, err: `error: ${file}: cannot read (permission denied)\n` });
  });

  // `run` on a directory without experiment files runs nothing, prints nothing and exits 0 (cli.ts runFiles).
  it('a directory without any experiment file is an input error', async () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'empty'));
    const r = await cli(['run', join(dir, 'empty'), '--out', join(dir, 'out')]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(new RegExp(`^error: ${join(dir, 'empty')}: `));
  });
});

describe('bad --set overrides', () => {
  const dir = tempDir();
  const file = writeExperiment(dir, 'good.json', validExperiment());
  const cases: Array<[string[], string[]]> = [
    [['--set', 'nonsense'], ['--set expects path=value (got "nonsense")']],
    [['--set', '=3'], ['--set expects path=value, the path is empty (got "=3")']],
    [['--set', 'scenario.workload.clinets=3'], [`${file}: --set scenario.workload.clinets: scenario.workload.clinets is not a known field (did you mean "clients"?)`]],
    [['--set', 'scenario.stack.5.name=x'], [`${file}: --set scenario.stack.5.name: cannot set stack.5.name: stack has 1 entry, so the index must be less than 1 (got 5; an index past the end of a list is an error, not a new entry)`]],
    [['--set', 'scenario.horizonMs=NaN'], [`${file}: --set scenario.horizonMs: scenario.horizonMs must be a number > 0 (got "NaN")`]],
    [
      ['--set', 'scenario.workload.clients=0', '--set', 'scenario.leaf.concurrency=0'],
      [
        `${file}: --set scenario.workload.clients: scenario.workload.clients must be a positive integer (got 0)`,
        `${file}: --set scenario.leaf.concurrency: scenario.leaf.concurrency must be a positive integer or "unlimited" (got 0)`,
      ],
    ],
  ];
  it.each(cases)('%j', async (args, messages) => {
    for (const command of ['run', 'validate']) {
      const r = await cli([command, file, ...args, ...(command === 'run' ? ['--out', join(dir, 'out')] : [])]);
      expect({ command, code: r.code, err: r.err }).toEqual({ command, code: 2, err: messages.map((m) => `error: ${m}\n`).join('') });
    }
  });
});

describe('inputs that validation lets through', () => {
  // flattenMetrics keys metrics by layer name: two layers named alike share `attempts.<name>.*`,
  // and the summary keeps only the last layer's counts (validation accepts the duplicate names).
  it("two layers with one name are refused, or both layers' attempts reach the summary", async () => {
    const dir = tempDir();
    const body = {
      name: 'dup',
      scenario: {
        workload: { kind: 'burst', clients: 10 },
        stack: [
          { name: 'a', policy: { maxAttempts: 3, backoff: { kind: 'none' } } },
          { name: 'a', policy: { maxAttempts: 2, backoff: { kind: 'none' } } },
        ],
        leaf: { kind: 'server', serviceMs: 1, faults: [{ probability: 1 }] },
      },
      replications: 2,
    };
    const file = writeExperiment(dir, 'dup.json', body);
    const r = await cli(['run', file, '--out', dir, '--quiet', '--workers', '1']);
    if (r.code === 2) {
      expect(r.err).toMatch(/scenario\.stack\.1\.name/);
      return;
    }
    expect(r.code).toBe(0);
    const summary = readFileSync(join(dir, 'dup', 'summary.json'), 'utf8');
    const metrics = (JSON.parse(summary) as { cells: Array<{ metrics: Record<string, { mean: number }> }> }).cells[0]?.metrics ?? {};
    // Layer 0: 10 first tries and 20 retries; layer 1: 30 first tries and 30 retries. 60 leaf calls.
    const attempts = Object.entries(metrics)
      .filter(([k]) => k.startsWith('attempts.'))
      .map(([k, v]) => [k, v.mean]);
    expect(attempts).toHaveLength(4);
    expect(attempts.map(([, v]) => v).sort()).toEqual([10, 20, 30, 30]);
  });

  // runFiles loads every file of a directory but throws at the first invalid one.
  it('a directory of experiment files: the problems of every file are reported at once', async () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'two'));
    const a = writeExperiment(join(dir, 'two'), 'a.json', { ...validExperiment(), name: 'a', seed: 'x' });
    const b = writeExperiment(join(dir, 'two'), 'b.json', '{');
    writeExperiment(join(dir, 'two'), 'c.json', { ...validExperiment(), name: 'c' });
    const r = await cli(['run', join(dir, 'two'), '--out', join(dir, 'out')]);
    expect(r.code).toBe(2);
    expect(r.err).toBe(`error: ${a}: seed must be an integer (got "x")\nerror: ${b}: invalid JSON at line 1, column 2: unexpected end of input (expected a property name in double quotes)\n`);
  });

  // An empty key is reported with an empty name: " is not a known field", "scenario.workload. is not a known field".
  it('an empty key is named visibly in its message', async () => {
    const dir = tempDir();
    const body = { ...withScenario((s) => (s.workload[''] = 3)), '': 1 };
    const file = writeExperiment(dir, 'empty-key.json', body);
    const r = await cli(['validate', file]);
    expect(r.code).toBe(2);
    const lines = r.err.trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    for (const line of lines) expect(line).toMatch(/""/);
  });

  // The workload accepts any positive integer of clients; the model refuses 2^32 and more at run
  // time (ClientRandom), which `run` reports as an errored cell with exit code 1.
  it('a client count the model cannot hold is refused by validation (exit code 2, naming the field)', async () => {
    const dir = tempDir();
    const file = writeExperiment(dir, 'big.json', withScenario((s) => ((s.workload.clients = 5e9), (s.maxEvents = 10))));
    const v = await cli(['validate', file]);
    expect(v.code).toBe(2);
    expect(v.err).toMatch(/^error: .*: scenario\.workload\.clients /);
  });

  // Validation accepts "hang" when any layer has a per-attempt timeout; Model.checkScript demands
  // one on the last layer (or a deadline) and throws, so `run` reports an errored cell (exit code 1).
  it('a file that `validate` accepts does not fail at run time with a scenario error', async () => {
    const dir = tempDir();
    const file = writeExperiment(dir, 'hang.json', {
      name: 'hang',
      scenario: {
        workload: { kind: 'burst', clients: 1 },
        stack: [{ name: 'app', policy: { maxAttempts: 2, perAttemptTimeoutMs: 100 } }, { name: 'sdk', policy: { maxAttempts: 2 } }],
        leaf: { kind: 'script', script: ['hang'] },
      },
    });
    expect((await cli(['validate', file])).code).toBe(0);
    const r = await cli(['run', file, '--out', dir, '--quiet']);
    expect(r).toMatchObject({ code: 0, err: '' });
  });
});
