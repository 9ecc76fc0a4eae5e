// Child process of the memory benchmarks: runs one scenario and prints its peak RSS as JSON.
//   node bench/cases/memory.mjs clients <N>   closed loop with N clients (manyClientsScenario)
//   node bench/cases/memory.mjs open <ops>    open loop of about <ops> operations (openLoopScenario)
//   node bench/cases/memory.mjs baseline      the same imports, nothing run (Node's own footprint)
import { readFileSync } from 'node:fs';
import { Model } from '../../dist/model/Model.js';
import { startClock } from '../lib/clock.mjs';
import { manyClientsScenario, openLoopScenario } from '../lib/scenarios.mjs';

/** Peak resident set size in bytes: VmHWM from /proc/self/status, else resourceUsage().maxRSS. */
function peakRssBytes() {
  try {
    const m = /VmHWM:\s+(\d+)\s+kB/.exec(readFileSync('/proc/self/status', 'utf8'));
    if (m) return Number(m[1]) * 1024;
  } catch {
    // not Linux
  }
  return process.resourceUsage().maxRSS * 1024;
}

const [what, nText] = process.argv.slice(2);
const n = Number(nText);
let out = { what, n };
if (what === 'baseline') {
  out = { ...out, ops: 0, leafCalls: 0, cpuSec: 0 };
} else {
  const scenario = what === 'clients' ? manyClientsScenario(n) : openLoopScenario(n);
  const clock = startClock();
  const r = new Model(scenario, { seed: 1 }).run();
  const t = clock.stop();
  out = { ...out, ops: r.operations.offered, succeeded: r.operations.succeeded, leafCalls: r.leafCalls, events: r.events, ...t };
}
out.peakRssBytes = peakRssBytes();
out.maxRssBytes = process.resourceUsage().maxRSS * 1024;
out.heapUsedBytes = process.memoryUsage().heapUsed;
process.stdout.write(JSON.stringify(out) + '\n');
