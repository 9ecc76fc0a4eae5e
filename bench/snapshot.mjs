// The cost of copying a run's state (src/engine/copyState.ts) at a simulated time, for the storm
// (10,000 clients, 3 layers; bench/lib/scenarios.mjs) and the graph benchmark's scenario (10,000
// clients, 7 services):
//   node --expose-gc bench/snapshot.mjs [--at MS] [--copies N] [--only storm|graph]
// (run `npm run build` first). Each model is run as Model.run() runs it, but only to --at (default
// 5,000 ms: in the storm's fault window), and its state is surveyed: the paths from the model to
// every function that is neither a random stream nor a known stateless function (closures, whose
// captured state no copy can reach: what the model must turn into plain fields), and the
// per-client generators built from a bare seed (which fresh streams cannot re-seed). Then the
// state is copied N times (default 3) regardless, those functions shared as if they held no
// state, to measure what a copy costs: CPU milliseconds per copy (median) and the bytes a copy
// holds (heap and array buffers, after a full collection, per copy); and the original and one copy
// go on to twice --at, with their events and events per CPU second (the same events when nothing
// was shared). Until the survey is empty a copy is not a snapshot every run could go on from.
import { copyState, stateProblems } from '../dist/engine/copyState.js';
import { streamOrigin } from '../dist/engine/random.js';
import { Model } from '../dist/model/Model.js';
import { notDrawn } from '../dist/model/streams.js';
import { startClock, median } from './lib/clock.mjs';
import { graphScenario, stormScenario } from './lib/scenarios.mjs';

const args = process.argv.slice(2);
const opt = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 ? Number(args[i + 1]) : fallback;
};
const atMs = opt('--at', 5000);
const copies = opt('--copies', 3);
if (typeof globalThis.gc !== 'function') {
  process.stderr.write('run with node --expose-gc (the bytes of a copy are measured after a full collection)\n');
  process.exit(2);
}

/** Runs `model` as Model.run() and GraphRun.run() begin, up to `until` ms. */
function runTo(model, until) {
  const g = model.graphRun;
  const target = g ?? model;
  const sc = target.sc;
  const t0 = -sc.warmupMs;
  if (g !== null) {
    for (const e of g.entryStacks) e.workload.start(t0);
    for (const s of g.services) s.fleet.start(t0);
    g.caches.start(sc.horizonMs);
  } else {
    model.workload.start(t0);
    model.leaf.start(t0);
  }
  if (sc.interventions !== undefined) throw new Error('the benchmark scenarios have no interventions');
  return target.sim.run(target, { horizonMs: until, maxEvents: sc.maxEvents });
}

/** Every function reachable from `root` that is not a random stream nor in `stateless` (what the survey refuses). */
function closures(root, stateless) {
  const found = new Set();
  const seen = new Set();
  const stack = [root];
  while (stack.length > 0) {
    const v = stack.pop();
    if (v === null || (typeof v !== 'object' && typeof v !== 'function') || seen.has(v)) continue;
    seen.add(v);
    if (typeof v === 'function') {
      if (!stateless.includes(v) && streamOrigin(v) === null) found.add(v);
      continue;
    }
    if (ArrayBuffer.isView(v) || v instanceof ArrayBuffer) continue;
    if (v instanceof Map) for (const [k, x] of v) stack.push(k, x);
    if (v instanceof Set) for (const x of v) stack.push(x);
    for (const key of Reflect.ownKeys(v)) {
      const d = Object.getOwnPropertyDescriptor(v, key);
      stack.push(d.value, d.get, d.set);
    }
  }
  return [...found];
}

function heldBytes() {
  globalThis.gc();
  globalThis.gc();
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
}

function measure(name, sc) {
  const model = new Model(sc, { seed: 1 });
  const stats = runTo(model, atMs);
  const stateless = [notDrawn];
  const problems = stateProblems(model, { rootName: 'model', stateless, streams: { kind: 'fresh', seed: 1 } });
  process.stdout.write(`${name}: ${stats.events} events to ${atMs} ms; ${problems.length} problem(s) in its state${problems.length > 0 ? ':' : ''}\n`);
  for (const p of problems) process.stdout.write(`  ${p}\n`);
  const shared = [...stateless, ...closures(model, stateless)];
  const times = [];
  const before = heldBytes();
  const kept = [];
  for (let i = 0; i < copies; i++) {
    const clock = startClock();
    kept.push(copyState(model, { streams: { kind: 'original' }, stateless: shared }));
    times.push(clock.stop().cpuSec * 1000);
  }
  const bytes = (heldBytes() - before) / copies;
  process.stdout.write(`  a copy: ${median(times).toFixed(1)} CPU ms (median of ${copies}), ${(bytes / 1e6).toFixed(2)} MB held${problems.length > 0 ? ' (the closures above shared, not copied)' : ''}\n`);
  // The original and a copy go on to twice the time: the same events (when nothing was shared), at what cost.
  const copy = kept[0];
  kept.length = 0;
  for (const [what, m] of [['original', model], ['copy', copy]]) {
    const target = m.graphRun ?? m;
    const clock = startClock();
    const s = target.sim.run(target, { horizonMs: 2 * atMs, maxEvents: target.sc.maxEvents });
    const cpu = clock.stop().cpuSec;
    process.stdout.write(`  the ${what} goes on to ${2 * atMs} ms: ${s.events} events, ${(s.events / cpu / 1e6).toFixed(2)} M events per CPU second\n`);
  }
}

const only = args.includes('--only') ? args[args.indexOf('--only') + 1] : null;
if (only === null || only === 'storm') measure('storm, 10,000 clients', stormScenario({ clients: 10_000 }));
if (only === null || only === 'graph') measure('graph, 10,000 clients', graphScenario());
