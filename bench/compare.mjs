// Compare two builds of the project, run by run: `node bench/compare.mjs OLD NEW [--pairs 5]
// [--only engine,mm1,storm,aws] [--quick] [--json FILE]` (the JSON is rewritten after every pair). OLD and NEW are directories that each
// hold a build (`dist/`), its `bench/` and `experiments/` (and a `node_modules`). Each pair runs
// every case of `--only` in turn, each once in each directory (`bench/run.mjs --only CASE`), the
// order flipped from pair to pair (old first, then new first): the two runs of a row are a case's
// length apart, not a whole benchmark's, so that a change in the machine's load between them is
// smaller, and a trend falls on both sides alike. Every row's subject
// value is compared within its pair: the per-pair ratio is new/old for rates, old/new for CPU
// seconds (above 1: the new build is faster) and new/old for memory (below 1: it takes less). The
// table gives each side's median and the median of the per-pair ratios (docs/performance.md).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir, loadavg } from 'node:os';
import { join, resolve } from 'node:path';

const argv = process.argv.slice(2);
const positional = argv.filter((a, i) => !a.startsWith('--') && !['--pairs', '--only', '--json'].includes(argv[i - 1]));
if (positional.length !== 2) {
  process.stderr.write('usage: node bench/compare.mjs OLD_DIR NEW_DIR [--pairs N] [--only a,b] [--quick] [--json FILE]\n');
  process.exit(2);
}
const [oldDir, newDir] = positional.map((d) => resolve(d));
const opt = (name, dflt) => {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : dflt;
};
const pairs = Number(opt('--pairs', '5'));
const only = opt('--only', 'engine,mm1,storm,aws');
const quick = argv.includes('--quick');
const jsonFile = opt('--json', null);
const scratch = mkdtempSync(join(tmpdir(), 'retrystorm-compare-'));

/** The value compared for each row, and how: 'rate' (higher is better), 'cpu' (lower), 'memory' (lower). */
function subject(row) {
  const v = row.values ?? {};
  if (v.simulator !== undefined) return { value: v.simulator, how: 'rate' };
  if (v.model !== undefined) return { value: v.model, how: 'rate' };
  if (v.graph !== undefined) return { value: v.graph, how: 'rate' };
  if (v.modelCpuSec !== undefined) return { value: v.modelCpuSec, how: 'cpu' };
  if (v.peakRssBytes !== undefined) return { value: v.peakRssBytes, how: 'memory' };
  if (v.bigBytes !== undefined) return { value: v.bigBytes, how: 'memory' };
  return null;
}

function runOnce(dir, tag, cases) {
  const out = join(scratch, `${tag}.json`);
  const args = [join(dir, 'bench', 'run.mjs'), '--only', cases, '--json', out, ...(quick ? ['--quick'] : [])];
  const r = spawnSync(process.execPath, args, { cwd: dir, encoding: 'utf8', stdio: ['ignore', 'ignore', 'inherit'] });
  if (r.status !== 0) throw new Error(`${dir}: bench/run.mjs exited ${r.status}`);
  const rows = new Map();
  for (const c of JSON.parse(readFileSync(out, 'utf8')).results) {
    for (const row of c.rows) {
      const s = subject(row);
      if (s) rows.set(row.benchmark, s);
    }
  }
  return rows;
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

const byRow = new Map();
const load0 = loadavg();
const t0 = performance.now();
for (let p = 0; p < pairs; p++) {
  const order = p % 2 === 0 ? ['old', 'new'] : ['new', 'old'];
  for (const c of only.split(',')) {
    const got = {};
    for (const side of order) {
      process.stderr.write(`pair ${p + 1}/${pairs}: ${c}, ${side} ...\n`);
      got[side] = runOnce(side === 'old' ? oldDir : newDir, `${p}-${c}-${side}`, c);
    }
    for (const [name, o] of got.old) {
      const n = got.new.get(name);
      if (!n) continue;
      const e = byRow.get(name) ?? { how: o.how, old: [], new: [], ratios: [] };
      e.old.push(o.value);
      e.new.push(n.value);
      e.ratios.push(o.how === 'cpu' ? o.value / n.value : n.value / o.value);
      byRow.set(name, e);
    }
  }
  // The pairs so far, so that a comparison stopped early (a machine that became busy) keeps them.
  if (jsonFile) writeJson(p + 1);
}
const load1 = loadavg();

const fmt = (how, x) => (how === 'cpu' ? `${x.toFixed(2)} s` : how === 'memory' ? `${(x / 1e6).toFixed(1)} MB` : `${(x / 1e6).toFixed(2)} M/s`);
const lines = [];
lines.push(`${pairs} pairs, each case alternated old/new, order flipped each pair; load average ${load0.map((x) => x.toFixed(2)).join(' ')} at the start, ${load1.map((x) => x.toFixed(2)).join(' ')} at the end; ${((performance.now() - t0) / 1000).toFixed(0)} s`);
lines.push('');
const header = ['row', 'old (median)', 'new (median)', 'per-pair ratio (median)', 'per-pair ratios'];
const table = [...byRow].map(([name, e]) => [
  name,
  fmt(e.how, median(e.old)),
  fmt(e.how, median(e.new)),
  `${median(e.ratios).toFixed(3)} (${e.how === 'memory' ? 'new/old' : e.how === 'cpu' ? 'old/new' : 'new/old'})`,
  e.ratios.map((r) => r.toFixed(3)).join(' '),
]);
const widths = header.map((h, i) => Math.max(h.length, ...table.map((r) => r[i].length)));
lines.push(header.map((h, i) => h.padEnd(widths[i])).join('  '));
lines.push(widths.map((w) => '-'.repeat(w)).join('  '));
for (const r of table) lines.push(r.map((c, i) => c.padEnd(widths[i])).join('  '));
console.log(lines.join('\n'));
if (jsonFile) writeJson(pairs);

function writeJson(done) {
  const load = loadavg();
  writeFileSync(jsonFile, `${JSON.stringify({ pairs: done, of: pairs, only, quick, loadStart: load0, loadNow: load, rows: Object.fromEntries(byRow) }, null, 2)}\n`);
}
