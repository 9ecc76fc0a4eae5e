import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { terminalText } from '../../src/cli/format.js';
import { cli, tempDir, writeExperiment } from '../helpers/reliability.js';

const RED = '\u001b[31mred\u001b[0m';

describe('names read from files never reach the terminal with their control characters', () => {
  it('terminalText writes C0 (but tab and newline), DEL and C1 as escapes', () => {
    expect(terminalText(`a${RED}\r\b\u0007\u007f\u0085\tb\nc é`)).toBe('a\\u001b[31mred\\u001b[0m\\u000d\\u0008\\u0007\\u007f\\u0085\tb\nc é');
  });

  it('a variant name with an ANSI escape is printed escaped by run, and a layer name by check', async () => {
    const dir = tempDir();
    const file = writeExperiment(dir, 'ansi.json', {
      name: 'ansi-names',
      description: 'names with escapes',
      seed: 1,
      scenario: {
        workload: { kind: 'burst', clients: 2 },
        stack: [{ name: `layer${RED}`, policy: { maxAttempts: 2 } }],
        leaf: { kind: 'server', concurrency: 1, serviceMs: 5 },
      },
      variants: { [`v${RED}`]: { 'stack.0.policy.maxAttempts': 1 }, plain: {} },
      replications: 1,
    });
    const run = await cli(['run', file, '--out', join(dir, 'out'), '--workers', '1']);
    expect(run.code).toBe(0);
    expect(run.out + run.err).not.toContain('\u001b');
    expect(run.out).toContain('v\\u001b[31mred\\u001b[0m');
    writeFileSync(join(dir, 'stack.json'), JSON.stringify({ layers: [{ name: `sdk${RED}`, policy: { maxAttempts: 3 } }] }));
    const check = await cli(['check', join(dir, 'stack.json')]);
    expect(check.out + check.err).not.toContain('\u001b');
    expect(check.out).toContain('sdk\\u001b[31mred\\u001b[0m');
  });
});
