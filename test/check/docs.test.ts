import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadStacks } from '../../src/check/index.js';
import { checkCommand } from '../../src/cli/checkCommand.js';
import { fixtureReader } from './helpers.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const DOC = readFileSync(join(ROOT, 'docs', 'check.md'), 'utf8');

/** The fenced blocks of the document, in order, with their language. */
function blocks(): Array<{ lang: string; text: string }> {
  return [...DOC.matchAll(/^```(\w*)\n([\s\S]*?)^```$/gm)].map((m) => ({ lang: m[1] ?? '', text: m[2] ?? '' }));
}

describe('docs/check.md', () => {
  it('the stack file it describes loads', () => {
    const yaml = blocks().find((b) => b.lang === 'yaml' && b.text.includes('layers:'))!;
    const [stack] = loadStacks(yaml.text, 'stack.yaml', { readImport: fixtureReader });
    expect(stack!.layers.map((l) => l.name)).toEqual(['app', 'sdk', 'proxy', 'inline']);
    expect(stack!.deadlineMs).toBe(2000);
  });

  it('the experiment file with an imported layer loads, its mesh layer imported from Istio', () => {
    const json = blocks().find((b) => b.lang === 'json' && b.text.includes('"import"'))!;
    const [stack] = loadStacks(json.text, 'exp.json', { readImport: fixtureReader });
    expect(stack!.layers.map((l) => [l.name, l.policy.maxAttempts, l.policy.idempotency])).toEqual([
      ['app', 1, 'http'],
      ['mesh', 5, 'http'],
    ]);
    expect(stack!.layers[1]!.origin).toMatch(/^mesh\/istio-virtualservice\.yaml: .*, with overrides$/);
  });

  it('the first worked example shows what check prints', () => {
    const command = '$ retrystorm check test/check/fixtures/three-layers.yaml\n';
    const block = blocks().find((b) => b.text.startsWith(command))!;
    let out = '';
    const code = checkCommand({ stdout: (s) => (out += s), stderr: () => {}, cwd: ROOT }, 'test/check/fixtures/three-layers.yaml', {});
    expect(code).toBe(1);
    expect(block.text.slice(command.length)).toBe(out);
  });
});
