import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { experimentFileJsonSchema } from '../../src/check/index.js';
import { BACKOFF_KINDS } from '../../src/policy/backoff.js';
import { RETRY_ON_CLASSES } from '../../src/policy/classify.js';
import { DEADLINE_MODES, IDEMPOTENCY_RULES, RETRY_AFTER_MODES } from '../../src/policy/schema/policySchema.js';
import { cli } from './helpers.js';

/** What the command line and the committed files say about kinds comes from the tables the code runs on. */
describe('kinds listed for people are the kinds the code knows', () => {
  it('trace --help lists every backoff kind, Retry-After mode, deadline mode, idempotency rule and retryable class', async () => {
    const r = await cli(['trace', '--help']);
    expect(r.code).toBe(0);
    const help = r.out.replace(/\s+/g, ' ');
    expect(BACKOFF_KINDS.length).toBeGreaterThan(6);
    expect(help).toContain(`--backoff <kind> ${BACKOFF_KINDS.join('|')}`);
    expect(help).toContain(`--retry-after <mode> ${RETRY_AFTER_MODES.join('|')}`);
    expect(help).toContain(`--deadline-mode <mode> ${DEADLINE_MODES.join('|')}`);
    expect(help).toContain(`--idempotency <rule> ${IDEMPOTENCY_RULES.join('|')}`);
    for (const c of RETRY_ON_CLASSES) expect(help).toContain(c);
  });

  it('the committed experiments/schema.json is what `npm run schema` writes', () => {
    const committed = readFileSync('experiments/schema.json', 'utf8');
    expect(committed === JSON.stringify(experimentFileJsonSchema(), null, 2) + '\n', 'experiments/schema.json is stale: run `npm run schema`').toBe(true);
  });
});
