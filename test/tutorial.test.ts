import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * docs/tutorial.md is true: the experiment file it builds piece by piece is docs/tutorial/shop.json
 * (every piece equal to the file where it goes, every field of the file shown), the searched copy
 * docs/tutorial/shop-tune.json is that file renamed, without its variants, with the `tune` piece it
 * shows, its stack file is docs/tutorial/db-call.yaml, every command it shows runs (the built
 * dist/cli/main.js) and prints what it shows, its headline is the run's, every number of its
 * comparison (between `<!-- measured -->` and `<!-- /measured -->`) is the quick run's, rounded as
 * printed, or within the tolerance it states, every number of what the search says (between
 * `<!-- tuned -->` and `<!-- /tuned -->`) is tune.json's, and the exported layer is the one
 * configuration tune.json recommends for every `sdk` layer.
 */
const ROOT = join(__dirname, '..');
const BIN = join(ROOT, 'dist', 'cli', 'main.js');
const DOC = 'docs/tutorial.md';
const EXPERIMENT = 'docs/tutorial/shop.json';
const STACK_FILE = 'docs/tutorial/db-call.yaml';
/** The copy of the experiment with a `tune` section, and the name it has. */
const TUNE_EXPERIMENT = 'docs/tutorial/shop-tune.json';
const TUNE_NAME = 'shop-tune';
/** The tuned dimension: one value at every `sdk` layer. */
const TUNED_PATH = 'layers[sdk].policy.maxAttempts';
/** The directories the tutorial's `run` and `tune` write to, each replaced by a temporary one here. */
const SHOWN_OUTS = ['/tmp/shop', '/tmp/shop-tune'];
/** The largest distance the text allows between the measured hit ratio and Che's approximation. */
const CHE_TOLERANCE = 0.01;

type Block = { info: string; body: string; before: string };
type Run = { code: number; out: string };
type Summary = (variant: string, metric: string) => number;
type Claim = { text: string; holds: boolean };
type Stats = { mean: number; ci95: [number, number] };
type Ranked = { id: string; values: Record<string, number> | null; feasibility: string; objectives: Stats[]; constraints: Array<Stats & { met: string }> };
type Export = { format: string; text: string; warnings: string[] };
/** What the tutorial reads of tune.json. */
type TuneJson = {
  stopReason: string;
  ranking: Ranked[];
  recommendation: { id: string; overrides: Record<string, Record<string, number>>; setFlags: string[]; configuration: Array<{ layer: string; layers: string[]; exports: Export[] }> } | null;
};
/** What the test saw: the shown commands' runs, the quick run's summary and headline, the search's answer, the tuned layer exported without a name. */
type Seen = { runs: Map<string, Run>; summary: Summary; finding: string; tune: TuneJson; exported: Run };

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
    .replace(/^(written to|report:) .*?(\/shop(?:-tune)?(?:\/index\.html)?)$/gm, '$1 OUT$2');
}

/** Run one shown command with the built CLI, from the checkout, writing runs to `outDir`. */
function runShown(command: string, outDir: string): Run {
  const args = command.split(/\s+/).slice(1).map((a) => (SHOWN_OUTS.includes(a) ? outDir : a));
  expect(command.startsWith('retrystorm ')).toBe(true);
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd: ROOT, encoding: 'utf8' });
  const isRun = args[0] === 'run' || args[0] === 'tune';
  // `run` and `tune` print their progress on stderr; the other commands' warnings there are part of what is shown.
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

/** The JSON pieces of the text, each as an object. */
function pieces(text: string): Array<Record<string, unknown>> {
  return blocks(text)
    .filter((x) => x.info === 'json')
    .map((b) => JSON.parse(b.body.trim().startsWith('{') ? b.body : `{${b.body}}`) as Record<string, unknown>);
}

/** Problems between the JSON pieces of the text (but the `tune` section) and the experiment file. */
function fileProblems(text: string, file: unknown): string[] {
  const problems: string[] = [];
  const covered = new Set<string>();
  const places = objects(file);
  for (const piece of pieces(text).filter((p) => !('tune' in p))) {
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

/** Problems between the searched copy and what the text says of it: the experiment renamed, without variants, with the `tune` piece. */
function tuneFileProblems(text: string, file: Record<string, unknown>, tuneFile: Record<string, unknown>): string[] {
  const problems: string[] = [];
  const shown = pieces(text).filter((p) => 'tune' in p);
  if (shown.length !== 1 || Object.keys(shown[0] as object).length !== 1) problems.push('the text shows no one piece that is the tune section alone');
  else if (!isDeepStrictEqual(shown[0]?.tune, tuneFile.tune)) problems.push(`the tune piece differs from ${TUNE_EXPERIMENT}`);
  const { variants: _variants, ...searched } = file;
  const { tune: _tune, ...rest } = tuneFile;
  if (!isDeepStrictEqual(rest, { ...searched, name: TUNE_NAME })) problems.push(`${TUNE_EXPERIMENT} is not ${EXPERIMENT} named ${TUNE_NAME} without its variants`);
  if (!text.includes(`named \`${TUNE_NAME}\``)) problems.push(`the text does not say the copy is named ${TUNE_NAME}`);
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
function measuredClaims(m: Summary, file: Record<string, any>, finding: string): Claim[] {
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

/** The sentences of what the search says, each built from tune.json, and the facts each one states. */
function tunedClaims(t: TuneJson, min: number): Claim[] {
  const rec = t.recommendation;
  const value = rec?.overrides.main?.[TUNED_PATH] ?? Number.NaN;
  const at = (n: number): Ranked | undefined => t.ranking.find((r) => r.values?.[TUNED_PATH] === n);
  const best = t.ranking.find((r) => r.id === rec?.id);
  const below = at(value - 1);
  const preset = t.ranking.find((r) => r.id === 'aws-sdk-js-standard');
  if (!best || !below || !preset) return [{ text: 'tune.json ranks the recommendation, the value below it and the preset', holds: false }];
  const amp = (r: Ranked): number => r.objectives[0]?.mean ?? Number.NaN;
  const ok = (r: Ranked): number => r.constraints[0]?.mean ?? Number.NaN;
  const bound = `${Math.round(100 * min)}%`;
  const [low, high] = below.constraints[0]?.ci95 ?? [Number.NaN, Number.NaN];
  return [
    {
      text: `${value} attempts at every \`sdk\` layer is the only candidate proven to meet the constraint: ${pct(ok(best))} of the window's operations succeed, at ${amp(best).toFixed(2)} leaf calls per operation over the window`,
      holds: best.values?.[TUNED_PATH] === value && isDeepStrictEqual(t.ranking.filter((r) => r.feasibility === 'feasible').map((r) => r.id), [best.id]),
    },
    {
      text: `With ${value - 1} attempts, ${pct(ok(below))} succeed at ${amp(below).toFixed(2)} calls per operation, but the interval of that success rate still spans ${bound}: not proven either way, so not recommended`,
      holds: below.constraints[0]?.met === 'unknown' && low < min && min < high,
    },
    {
      text: `\`aws-sdk-js-standard\` makes ${amp(preset).toFixed(2)} leaf calls per operation and ${pct(ok(preset))} succeed, proven below ${bound}: its retry quota saves calls and loses operations against ${value - 1} attempts without one`,
      holds: preset.constraints[0]?.met === 'no' && amp(preset) < amp(below) && ok(preset) < ok(below),
    },
  ];
}

/** Problems of one checked section: a claim it does not make, one the data does not support, a number nothing checks. */
function claimProblems(text: string, marker: string, claims: Claim[]): string[] {
  const section = new RegExp(`<!-- ${marker} -->\\n([\\s\\S]*?)<!-- /${marker} -->`).exec(text);
  if (!section) return [`no ${marker} section`];
  const out: string[] = [];
  let rest = (section[1] as string).replace(/\s+/g, ' ');
  for (const c of claims) {
    if (!rest.includes(c.text)) out.push(`the ${marker} section does not say: ${c.text}`);
    if (!c.holds) out.push(`the run does not support: ${c.text}`);
    rest = rest.split(c.text).join('');
  }
  const unchecked = rest.replace(/`[^`]*`/g, '').match(/[^\s]*\d[^\s]*/g);
  if (unchecked) out.push(`numbers in the ${marker} section that nothing checks: ${unchecked.join(' ')}`);
  return out;
}

/** Problems between the exported layer and the recommendation: one configuration for every sdk layer, whose istio text export writes. */
function exportProblems(t: TuneJson, exported: Run): string[] {
  const config = t.recommendation?.configuration ?? [];
  const istio = config[0]?.exports.find((e) => e.format === 'istio');
  const out: string[] = [];
  if (config.length !== 1 || config[0]?.layer !== 'sdk' || config[0]?.layers.length !== 4) out.push('the recommendation is not one configuration of the four sdk layers');
  const warnings = exported.out.split('\n').filter((l) => l.startsWith('warning: ')).map((l) => l.slice('warning: '.length));
  const written = exported.out.split('\n').filter((l) => !l.startsWith('warning: ')).join('\n');
  if (!istio || written.trim() !== istio.text.trim() || !isDeepStrictEqual(warnings, istio.warnings)) out.push(`${STACK_FILE}'s sdk does not export as the recommendation's istio configuration`);
  return out;
}

/** Everything in the text that disagrees with the files and with what the commands printed. */
function problems(text: string, seen: Seen): string[] {
  const { runs, summary: m, finding } = seen;
  const file = JSON.parse(readFileSync(join(ROOT, EXPERIMENT), 'utf8'));
  const tuneFile = JSON.parse(readFileSync(join(ROOT, TUNE_EXPERIMENT), 'utf8'));
  const out = [...fileProblems(text, file), ...tuneFileProblems(text, file, tuneFile), ...exportProblems(seen.tune, seen.exported)];
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
  const min = tuneFile.tune.constraints[0].min as number;
  return [...out, ...claimProblems(text, 'measured', measuredClaims(m, file, finding)), ...claimProblems(text, 'tuned', tunedClaims(seen.tune, min))];
}

describe('docs/tutorial.md', () => {
  const text = readFileSync(join(ROOT, DOC), 'utf8');
  const outDir = mkdtempSync(join(tmpdir(), 'retrystorm-tutorial-'));
  const seen: Seen = { runs: new Map<string, Run>(), summary: () => Number.NaN, finding: '', tune: { stopReason: '', ranking: [], recommendation: null }, exported: { code: -1, out: '' } };
  const runs = seen.runs;

  beforeAll(() => {
    for (const b of blocks(text).filter((x) => x.info === 'console')) {
      const { command } = consoleCommand(b);
      runs.set(command, runShown(command, outDir));
    }
    const rows = readFileSync(join(outDir, 'shop', 'summary.csv'), 'utf8').trim().split('\n').slice(1).map((l) => l.split(','));
    seen.summary = (variant, metric) => {
      const row = rows.find((r) => r[1] === variant && r[3] === metric);
      if (!row) throw new Error(`summary.csv has no ${variant} ${metric}`);
      return Number(row[5]);
    };
    seen.finding = JSON.parse(readFileSync(join(outDir, 'shop', 'report.json'), 'utf8')).finding;
    seen.tune = JSON.parse(readFileSync(join(outDir, TUNE_NAME, 'tune.json'), 'utf8'));
    seen.exported = runShown(`retrystorm export istio ${STACK_FILE} --layer sdk`, outDir);
  }, 120_000);
  afterAll(() => rmSync(outDir, { recursive: true, force: true }));

  it('runs every command it shows without an error', () => {
    expect(runs.size).toBe(5);
    expect([...runs.values(), seen.exported].map((r) => r.code)).toEqual([0, 0, 0, 0, 0, 0]);
  });

  it('agrees with its files, with what its commands print and with the numbers of its run', () => {
    expect(problems(text, seen)).toEqual([]);
  });

  it('suggests only changes that validate: its --set options, variant lines and the recommendation\'s flags on the file', () => {
    const spans = [...blocks(text).reduce((t, b) => t.replace(b.body, ''), text).matchAll(/`([^`\n]+)`/g)].map((x) => x[1] as string);
    const sets = spans.filter((x) => x.startsWith('--set ')).map((x) => x.slice('--set '.length));
    const variantLines = spans.filter((x) => /^"layers\[[^\]]+\][^"]*": /.test(x)).map((x) => `variants.suggested={${x}}`);
    expect(sets.length + variantLines.length).toBe(2);
    const recommended = (seen.tune.recommendation?.setFlags ?? []).map((f) => f.replace(/^--set /, ''));
    expect(recommended.map((f) => f.split('=')[0])).toEqual([TUNED_PATH]);
    // One validation of all of them (they set different paths, so none hides another's problem): each is named in any error.
    const all = [...sets, ...variantLines, ...recommended];
    const r = spawnSync(process.execPath, [BIN, 'validate', EXPERIMENT, '--quick', ...all.flatMap((s) => ['--set', s])], { cwd: ROOT, encoding: 'utf8' });
    expect([r.status, r.stderr], all.join(' ')).toEqual([0, '']);
    expect(r.stdout.startsWith('shop: valid\n'), all.join(' ')).toBe(true);
  });

  it('disagrees as soon as one number, one output line or one field of a piece changes', () => {
    const probes: Array<[string, string]> = [
      ['98.3% of', '98.4% of'],
      ['1.66 s: its', '1.67 s: its'],
      ['8 layers\n  layers[sdk,sidecar].policy.maxAttempts (variants.three', '7 layers\n  layers[sdk,sidecar].policy.maxAttempts (variants.three'],
      ['7514       18581', '7514       18582'],
      ['"queueLimit": 40', '"queueLimit": 41'],
      ['succeeds 97.7%.', 'succeeds 97.7%, with 3 retries.'],
      ['99.9% of the\n  window', '99.8% of the\n  window'],
      ['spans 99%: not proven', 'spans 99%, 2 sd: not proven'],
      ['36 runs in 3 rounds', '37 runs in 3 rounds'],
      ['"min": 1, "max": 4 }', '"min": 1, "max": 5 }'],
      ['maxAttempts: 4, backoff', 'maxAttempts: 3, backoff'],
    ];
    for (const [from, to] of probes) {
      expect(text.includes(from), from).toBe(true);
      expect(problems(text.replace(from, to), seen).length, to).toBeGreaterThan(0);
    }
  });
});
