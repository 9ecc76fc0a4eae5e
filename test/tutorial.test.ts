import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * docs/tutorial.md is true: the experiment file it builds piece by piece is docs/tutorial/shop.json
 * (every piece equal to the file where it goes, every field of the file shown), its stack file is
 * docs/tutorial/db-call.yaml, every command it shows runs (the built dist/cli/main.js) and prints what
 * it shows, its headline is the run's, and every number of its comparison (between `<!-- measured -->`
 * and `<!-- /measured -->`) is the quick run's, rounded as printed, or within the tolerance it states.
 */
const ROOT = join(__dirname, '..');
const BIN = join(ROOT, 'dist', 'cli', 'main.js');
const DOC = 'docs/tutorial.md';
const EXPERIMENT = 'docs/tutorial/shop.json';
const STACK_FILE = 'docs/tutorial/db-call.yaml';
/** The directory the tutorial's `run` writes to, replaced by a temporary one here. */
const SHOWN_OUT = '/tmp/shop';
/** The largest distance the text allows between the measured hit ratio and Che's approximation. */
const CHE_TOLERANCE = 0.01;

type Block = { info: string; body: string; before: string };
type Run = { code: number; out: string };
type Summary = (variant: string, metric: string) => number;

/** The fenced code blocks of a Markdown text, with the text just before each. */
function blocks(text: string): Block[] {
  const out: Block[] = [];
  let last = 0;
  for (const m of text.matchAll(/^```([^\n]*)\n([\s\S]*?)^```$/gm)) {
    out.push({ info: (m[1] as string).trim(), body: m[2] as string, before: text.slice(last, m.index) });
    last = (m.index as number) + m[0].length;
  }
  return out;
}

/** The shown command of a console block and the output shown after it. */
function consoleCommand(b: Block): { command: string; shown: string } {
  const [first, ...rest] = b.body.split('\n');
  return { command: (first as string).replace(/^\$ /, ''), shown: rest.join('\n') };
}

/** Paths that differ between machines: the checkout's, and where a run's output directory is. */
function normalize(text: string): string {
  return text
    .split(`${ROOT}/`)
    .join('')
    .replace(/^(written to|report:) .*?(\/shop(?:\/index\.html)?)$/gm, '$1 OUT$2');
}

/** Run one shown command with the built CLI, from the checkout, writing runs to `outDir`. */
function runShown(command: string, outDir: string): Run {
  const args = command.split(/\s+/).slice(1).map((a) => (a === SHOWN_OUT ? outDir : a));
  expect(command.startsWith('retrystorm ')).toBe(true);
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd: ROOT, encoding: 'utf8' });
  const isRun = args[0] === 'run';
  // `run` prints its progress on stderr; the other commands' warnings there are part of what is shown.
  return { code: r.status ?? -1, out: normalize(r.stdout + (isRun ? '' : r.stderr)) };
}

/** Every object path of a JSON value (dotted, '' for the root) with the object there. */
function objects(v: unknown, path = ''): Array<[string, Record<string, unknown>]> {
  if (v === null || typeof v !== 'object') return [];
  const own: Array<[string, Record<string, unknown>]> = Array.isArray(v) ? [] : [[path, v as Record<string, unknown>]];
  return own.concat(
    ...Object.entries(v as Record<string, unknown>).map(([k, c]) => objects(c, path === '' ? k : `${path}.${k}`)),
  );
}

/** Every leaf path of a JSON value. */
function leaves(v: unknown, path = ''): string[] {
  if (v === null || typeof v !== 'object') return [path];
  const entries = Object.entries(v as Record<string, unknown>);
  if (entries.length === 0) return [path];
  return entries.flatMap(([k, c]) => leaves(c, path === '' ? k : `${path}.${k}`));
}

/** Problems between the JSON pieces of the text and the experiment file. */
function fileProblems(text: string, file: unknown): string[] {
  const problems: string[] = [];
  const covered = new Set<string>();
  const places = objects(file);
  for (const b of blocks(text).filter((x) => x.info === 'json')) {
    const piece = JSON.parse(b.body.trim().startsWith('{') ? b.body : `{${b.body}}`) as Record<string, unknown>;
    const keys = Object.keys(piece);
    const where = places.filter(([, o]) => keys.every((k) => k in o));
    if (where.length !== 1) {
      problems.push(`piece with keys ${keys.join(', ')} fits ${where.length} places of ${EXPERIMENT}`);
      continue;
    }
    const [path, obj] = where[0] as [string, Record<string, unknown>];
    for (const k of keys) {
      const full = path === '' ? k : `${path}.${k}`;
      if (JSON.stringify(piece[k]) !== JSON.stringify(obj[k])) problems.push(`piece ${full} differs from ${EXPERIMENT}`);
      for (const leaf of leaves(obj[k], full)) covered.add(leaf);
    }
  }
  for (const leaf of leaves(file)) if (!covered.has(leaf)) problems.push(`${EXPERIMENT}: ${leaf} is not shown`);
  return problems;
}

/** Che's approximation of a warm LRU cache's hit ratio under independent Zipf requests. */
function cheHitRatio(capacity: number, keys: number, zipf: number): number {
  const w = Array.from({ length: keys }, (_, i) => (i + 1) ** -zipf);
  const total = w.reduce((a, b) => a + b, 0);
  const p = w.map((x) => x / total);
  const filled = (t: number): number => p.reduce((a, q) => a + 1 - Math.exp(-q * t), 0);
  let lo = 0;
  let hi = 1;
  while (filled(hi) < capacity) hi *= 2;
  for (let i = 0; i < 100; i++) {
    const mid = (lo + hi) / 2;
    if (filled(mid) < capacity) lo = mid;
    else hi = mid;
  }
  return p.reduce((a, q) => a + q * (1 - Math.exp(-q * lo)), 0);
}

const pct = (x: number): string => `${(100 * x).toFixed(1)}%`;
const ms = (x: number): string => (x < 1000 ? `${Math.round(x)} ms` : `${(x / 1000).toFixed(2)} s`);
const group = (x: number): string => x.toLocaleString('en-US');

/** The sentences of the comparison, each built from the run, and the facts each one states. */
function measuredClaims(m: Summary, file: Record<string, any>, finding: string): Array<{ text: string; holds: boolean }> {
  const variants = ['as-deployed', 'no-retries', 'three-attempts', 'sdk-budget'];
  const amp = (v: string): number => m(v, 'amplification');
  const cache = file.scenario.services.orders.endpoints.get.steps[1].calls[0].cache;
  const che = cheHitRatio(cache.capacity, cache.keys, cache.zipf);
  const hit = (v: string, s: string): number => m(v, `services.${s}.caches.db.hitRatio`);
  return [
    {
      text: `\`no-retries\` makes the fewest calls, ${amp('no-retries').toFixed(2)} leaf calls per operation, with a \`p99\` of ${ms(m('no-retries', 'latencyMs.p99'))}; ${pct(m('no-retries', 'successRate'))} of its operations succeed`,
      holds: variants.every((v) => amp('no-retries') <= amp(v)),
    },
    {
      text: `sends ${amp('as-deployed').toFixed(2)} leaf calls per operation and succeeds ${pct(m('as-deployed', 'successRate'))}`,
      holds:
        m('as-deployed', 'successRate') <= m('no-retries', 'successRate') &&
        /as-deployed[^.]* no practical difference from no-retries/.test(finding),
    },
    {
      text: `\`three-attempts\` succeeds ${pct(m('three-attempts', 'successRate'))}, at ${amp('three-attempts').toFixed(2)} leaf calls per operation (${(amp('three-attempts') / amp('no-retries')).toFixed(1)} times the calls of \`no-retries\`) and a \`p99\` of ${ms(m('three-attempts', 'latencyMs.p99'))}`,
      holds: variants.every((v) => m('three-attempts', 'successRate') >= m(v, 'successRate')),
    },
    {
      text: `\`sdk-budget\` cuts the calls of \`as-deployed\` to ${amp('sdk-budget').toFixed(2)} per operation and succeeds ${pct(m('sdk-budget', 'successRate'))}`,
      holds: amp('sdk-budget') < amp('as-deployed'),
    },
    {
      text: `Each service's cache hits ${hit('no-retries', 'orders').toFixed(3)} of its lookups with \`no-retries\`, within ${CHE_TOLERANCE} of the ${che.toFixed(3)} that Che's approximation predicts for a warm cache of ${group(cache.capacity)} entries over ${group(cache.keys)} keys at Zipf ${cache.zipf}`,
      holds:
        hit('no-retries', 'inventory').toFixed(3) === hit('no-retries', 'orders').toFixed(3) &&
        ['orders', 'inventory'].every((s) => Math.abs(hit('no-retries', s) - che) <= CHE_TOLERANCE),
    },
    {
      text: `with \`three-attempts\` the ratio falls to ${hit('three-attempts', 'orders').toFixed(3)}`,
      holds:
        hit('three-attempts', 'inventory').toFixed(3) === hit('three-attempts', 'orders').toFixed(3) &&
        hit('three-attempts', 'orders') < hit('no-retries', 'orders'),
    },
  ];
}

/** Everything in the text that disagrees with the files and with what the commands printed. */
function problems(text: string, runs: Map<string, Run>, m: Summary, finding: string): string[] {
  const file = JSON.parse(readFileSync(join(ROOT, EXPERIMENT), 'utf8'));
  const out = fileProblems(text, file);
  const yaml = blocks(text).filter((b) => b.info === 'yaml');
  if (yaml.length !== 1 || yaml[0]?.body !== readFileSync(join(ROOT, STACK_FILE), 'utf8')) out.push(`the yaml block differs from ${STACK_FILE}`);
  for (const b of blocks(text).filter((x) => x.info === 'console')) {
    const { command, shown } = consoleCommand(b);
    const run = runs.get(command);
    if (!run) out.push(`${command}: not run`);
    else if (run.out !== normalize(shown)) out.push(`${command}: the shown output differs from what it prints`);
  }
  const headline = /<!-- headline -->\n> (.*)\n/.exec(text);
  if (headline?.[1] !== finding) out.push("the headline differs from the run's report.json finding");
  const measured = /<!-- measured -->\n([\s\S]*?)<!-- \/measured -->/.exec(text);
  if (!measured) return [...out, 'no measured section'];
  let rest = (measured[1] as string).replace(/\s+/g, ' ');
  for (const c of measuredClaims(m, file, finding)) {
    if (!rest.includes(c.text)) out.push(`the comparison does not say: ${c.text}`);
    if (!c.holds) out.push(`the run does not support: ${c.text}`);
    rest = rest.split(c.text).join('');
  }
  const unchecked = rest.replace(/`[^`]*`/g, '').match(/[^\s]*\d[^\s]*/g);
  if (unchecked) out.push(`numbers in the comparison that nothing checks: ${unchecked.join(' ')}`);
  return out;
}

describe('docs/tutorial.md', () => {
  const text = readFileSync(join(ROOT, DOC), 'utf8');
  const outDir = mkdtempSync(join(tmpdir(), 'retrystorm-tutorial-'));
  const runs = new Map<string, Run>();
  let summary: Summary = () => Number.NaN;
  let finding = '';

  beforeAll(() => {
    for (const b of blocks(text).filter((x) => x.info === 'console')) {
      const { command } = consoleCommand(b);
      runs.set(command, runShown(command, outDir));
    }
    const rows = readFileSync(join(outDir, 'shop', 'summary.csv'), 'utf8').trim().split('\n').slice(1).map((l) => l.split(','));
    summary = (variant, metric) => {
      const row = rows.find((r) => r[1] === variant && r[3] === metric);
      if (!row) throw new Error(`summary.csv has no ${variant} ${metric}`);
      return Number(row[5]);
    };
    finding = JSON.parse(readFileSync(join(outDir, 'shop', 'report.json'), 'utf8')).finding;
  }, 60_000);
  afterAll(() => rmSync(outDir, { recursive: true, force: true }));

  it('runs every command it shows without an error', () => {
    expect(runs.size).toBe(4);
    expect([...runs.values()].map((r) => r.code)).toEqual([0, 0, 0, 0]);
  });

  it('agrees with its files, with what its commands print and with the numbers of its run', () => {
    expect(problems(text, runs, summary, finding)).toEqual([]);
  });

  it('suggests only changes that validate: its --set options and variant lines', () => {
    const spans = [...blocks(text).reduce((t, b) => t.replace(b.body, ''), text).matchAll(/`([^`\n]+)`/g)].map((x) => x[1] as string);
    const sets = spans.filter((x) => x.startsWith('--set ')).map((x) => x.slice('--set '.length));
    const variantLines = spans.filter((x) => /^"layers\[[^\]]+\][^"]*": /.test(x)).map((x) => `variants.suggested={${x}}`);
    expect(sets.length + variantLines.length).toBe(2);
    for (const set of [...sets, ...variantLines]) {
      const r = spawnSync(process.execPath, [BIN, 'validate', EXPERIMENT, '--quick', '--set', set], { cwd: ROOT, encoding: 'utf8' });
      expect([r.status, r.stderr], set).toEqual([0, '']);
      expect(r.stdout.startsWith('shop: valid\n'), set).toBe(true);
    }
  });

  it('disagrees as soon as one number, one output line or one field of a piece changes', () => {
    const probes: Array<[string, string]> = [
      ['98.3% of', '98.4% of'],
      ['1.66 s: its', '1.67 s: its'],
      ['8 layers\n  layers[sdk,sidecar].policy.maxAttempts (variants.three', '7 layers\n  layers[sdk,sidecar].policy.maxAttempts (variants.three'],
      ['7514       18581', '7514       18582'],
      ['"queueLimit": 40', '"queueLimit": 41'],
      ['succeeds 97.7%.', 'succeeds 97.7%, with 3 retries.'],
    ];
    for (const [from, to] of probes) {
      expect(text.includes(from), from).toBe(true);
      expect(problems(text.replace(from, to), runs, summary, finding).length, to).toBeGreaterThan(0);
    }
  });
});
