// Reading back a summary too long for one string (`report`, `merge` and `--resume` read them): writes
// one of about MB megabytes (default 540: 1,000,000-bin series of counts and long decimals, indented
// by 2, as summary.json is) and times readJsonFile on it, each read in a child process, interleaved
// with the same read by another build when `--against DIR` names one (its dist/ directory, e.g. of a
// worktree at an older commit). CPU seconds of the child (the machine is shared: wall time is not).
//   node bench/readBack.mjs [MB] [--against DIR] [--runs N]
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const argv = process.argv.slice(2);
const child = argv[0] === '--child';
if (child) {
  // --child DIST FILE: read FILE with DIST's reader and print the CPU seconds.
  const { readJsonFile } = await import(join(argv[1], 'sweep', 'ResultReader.js'));
  const c0 = process.cpuUsage();
  const back = readJsonFile(argv[2]);
  const cpu = process.cpuUsage(c0);
  if (!Array.isArray(back.cells)) throw new Error('not the summary written');
  process.stdout.write(`${(cpu.user + cpu.system) / 1e6}\n`);
  process.exit(0);
}

const opt = (name, dflt) => {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : dflt;
};
const mb = Number(argv[0] !== undefined && !argv[0].startsWith('--') ? argv[0] : 540);
const runs = Number(opt('--runs', 3));
const here = fileURLToPath(new URL('../dist', import.meta.url));
const builds = [['this build', here]];
const against = opt('--against', null);
if (against !== null) builds.push(['--against', against]);

const { ResultWriter } = await import(join(here, 'sweep', 'ResultWriter.js'));
const dir = mkdtempSync(join(tmpdir(), 'readback-'));
try {
  const bins = 1_000_000;
  const counts = Array.from({ length: bins }, (_, i) => (i * 7919) % 13);
  const gauges = Array.from({ length: bins }, (_, i) => ((i * 7919) % 100_003) / 7);
  const cells = [];
  // About 13 bytes a count and 30 a gauge, indented: two of each a cell.
  for (let bytes = 0; bytes < mb * 1e6; bytes += 2 * bins * 13 + 2 * bins * 30) {
    cells.push({ key: `cell-${cells.length}`, timeSeries: { typical: { arrivalsFirst: counts, arrivalsRetry: counts, queue: gauges }, mean: { queue: gauges } } });
  }
  new ResultWriter(dir).writeJsonFile('summary.json', { experiment: 'read-back', cells }, 2);
  const file = join(dir, 'summary.json');
  const size = statSync(file).size;
  const cpu = builds.map(() => []);
  for (let r = 0; r < runs; r++) {
    builds.forEach(([, dist], k) => {
      const p = spawnSync(process.execPath, ['--max-old-space-size=8000', fileURLToPath(import.meta.url), '--child', dist, file], { encoding: 'utf8' });
      if (p.status !== 0) throw new Error(p.stderr);
      cpu[k].push(Number(p.stdout));
    });
  }
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  console.log(`summary.json of ${(size / 1e6).toFixed(0)} MB (${cells.length} cells), readJsonFile, median of ${runs}:`);
  builds.forEach(([name], k) => {
    const s = median(cpu[k]);
    console.log(`  ${name.padEnd(10)} ${s.toFixed(2)} CPU-s  ${(size / 1e6 / s).toFixed(0)} MB per CPU-second  (${cpu[k].map((x) => x.toFixed(2)).join(', ')})`);
  });
} finally {
  rmSync(dir, { recursive: true, force: true });
}
