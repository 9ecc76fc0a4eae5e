// The cost of copying a run's state (src/engine/copyState.ts) at a simulated time, for the storm
// (10,000 clients, 3 layers; bench/lib/scenarios.mjs) and the graph benchmark's scenario (10,000
// clients, 7 services):
//   node bench/snapshot.mjs [--at MS] [--copies N] [--only storm|graph]
// (run `npm run build` first). Each model is begun and run in pieces to --at (default 5,000 ms: in
// the storm's fault window) as a risk estimate runs it (Model.begin, Model.runUntil), and its state
// is surveyed: the paths from the model to everything a copy cannot reach (closures, per-client
// generators built from a bare seed, which fresh streams cannot re-seed). Then the state is copied
// N times (default 3) with the original streams, to measure what a copy costs: CPU milliseconds per
// copy (median) and the bytes a copy holds (heap and array buffers, after a full collection, per
// copy; bench/lib/snapshotCost.mjs); and the original and one copy go on to twice --at, with their
// events and events per CPU second (the same events: a copy with the original streams is the run),
// and so does a copy made into the objects of a model just built (copyState's `into`).
// `npm run bench` has the copy's cost as a row (bench/cases/snapshot.mjs).
import { copyInto, goOn, snapshotCost } from './lib/snapshotCost.mjs';
import { graphScenario, stormScenario } from './lib/scenarios.mjs';

const args = process.argv.slice(2);
const opt = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 ? Number(args[i + 1]) : fallback;
};
const atMs = opt('--at', 5000);
const copies = opt('--copies', 3);

function measure(name, sc) {
  const s = snapshotCost(sc, { atMs, copies, keep: true });
  const problems = s.problems;
  process.stdout.write(`${name}: ${s.events} events to ${atMs} ms (${s.runCpuMs.toFixed(0)} CPU ms); ${problems.length} problem(s) in its state${problems.length > 0 ? ':' : ''}\n`);
  for (const p of problems) process.stdout.write(`  ${p}\n`);
  process.stdout.write(`  a copy: ${s.copyCpuMs.toFixed(1)} CPU ms (median of ${copies}), ${(s.bytesPerCopy / 1e6).toFixed(2)} MB held\n`);
  const copy = s.kept[0];
  s.kept.length = 0;
  const into = copyInto(s.model, sc);
  process.stdout.write(`  a copy into a model built for it: ${into.cpuMs.toFixed(1)} CPU ms, building the model included\n`);
  for (const [what, m] of [['original', s.model], ['copy into a model built', into.copy], ['copy', copy]]) {
    const g = goOn(m, 2 * atMs);
    process.stdout.write(`  the ${what} goes on to ${2 * atMs} ms: ${g.events} events, ${(g.events / g.cpuSec / 1e6).toFixed(2)} M events per CPU second\n`);
  }
}

const only = args.includes('--only') ? args[args.indexOf('--only') + 1] : null;
if (only === null || only === 'storm') measure('storm, 10,000 clients', stormScenario({ clients: 10_000 }));
if (only === null || only === 'graph') measure('graph, 10,000 clients', graphScenario());
