// The efficiency of rare-event splitting on the real model (src/riskModel): the M/M/1 queue (open
// loop, one attempt, arrivals at 100/s, exponential service at 200/s) reaching N requests at the
// server before it empties, from the first arrival, read after every event: the gambler's-ruin
// probability 1 / (2^N - 1) of its embedded chain (p = 1/3, q/p = 2). At N = 20 (p about 1e-6)
// adaptive multilevel splitting's work-normalised relative variance (squared relative error x CPU
// seconds) is set against plain Monte Carlo's, computed from p and the CPU of one plain run as
// measured here (n runs give (1 - p) / (n p) for n times the CPU: (1 - p) / p x CPU per run), not
// run. Target: at least 100x smaller. Details: the estimate and its interval against the exact
// value, and the same at N = 30 (p about 1e-9).
import { parseScenario } from '../../dist/experiment/index.js';
import { estimateCellRisk } from '../../dist/riskModel/index.js';
import { startClock } from '../lib/clock.mjs';
import { caseOptions, emit } from '../lib/caseArgs.mjs';

const { quick } = caseOptions(1, 1);
const LAMBDA = 100;
const MU = 200;
const TARGET = 100;
const particles = quick ? 30 : 100;
const plainRuns = quick ? 2000 : 10_000;

const scenario = parseScenario(
  {
    workload: { kind: 'open', rate: LAMBDA, durationMs: 1e12 },
    stack: [{ name: 'client', policy: { maxAttempts: 1 } }],
    leaf: { kind: 'server', concurrency: 1, queueLimit: 'unlimited', discipline: 'fifo', serviceMs: { dist: 'exponential', mean: 1000 / MU } },
    horizonMs: 1e12,
    maxEvents: 1e12,
    metrics: { timeSeriesBinMs: 1e9, clusteringBinMs: [1e9] },
  },
  ['scenario'],
);

/** The risk section: importance and collapse on the requests at the server, absorbed when it empties. */
const ruin = (n, more) => ({
  importance: { metric: 'inFlight' },
  collapse: { metric: 'inFlight', above: n - 0.5, forMs: 0 },
  checkEveryMs: 0,
  absorbBelow: 1,
  ...more,
});

/** The gambler's-ruin probability of reaching n before 0 from 1. */
function exact(n) {
  const p = LAMBDA / (LAMBDA + MU);
  const r = (1 - p) / p;
  return (1 - r) / (1 - r ** n);
}

/** One splitting estimate at n, timed by this process's CPU. */
function split(n) {
  const clock = startClock();
  const r = estimateCellRisk(scenario, ruin(n, { particles, repetitions: 10 }), 2026);
  return { r, cpuSec: clock.stop().cpuSec };
}

const fmt = (x) => x.toExponential(2);
const holds = (r, p) => r.ci95[0] <= p && p <= r.ci95[1];

// Warm-up (JIT), not counted.
estimateCellRisk(scenario, ruin(8, { particles: 10, repetitions: 2 }), 1);

const clock = startClock();
const mc = estimateCellRisk(scenario, ruin(20, { method: 'monte-carlo', runs: plainRuns }), 2026);
const cpuPerRun = clock.stop().cpuSec / plainRuns;

const p6 = exact(20);
const s6 = split(20);
const splitWork = s6.r.relativeError ** 2 * s6.cpuSec;
const plainWork = ((1 - p6) / p6) * cpuPerRun;
const ratio = plainWork / splitWork;
const p9 = exact(30);
const s9 = split(30);

emit({
  rows: [
    {
      benchmark: 'risk: splitting vs plain MC at p ~ 1e-6',
      measured: `${fmt(splitWork)} re^2 s`,
      reference: `${fmt(plainWork)} re^2 s`,
      ratio: `${ratio.toFixed(0)}x`,
      target: `>= ${TARGET}x`,
      pass: ratio >= TARGET,
      values: { splitWork, plainWork, ratio, cpuPerRun, splitCpuSec: s6.cpuSec, relativeError: s6.r.relativeError, particles },
    },
  ],
  details: [
    `risk, M/M/1 reaching N = 20 before emptying: exact ${fmt(p6)}; adaptive splitting (${particles} particles, 10 repetitions) ${fmt(s6.r.probability)} ` +
      `[${fmt(s6.r.ci95[0])}, ${fmt(s6.r.ci95[1])}] (${holds(s6.r, p6) ? 'holds' : 'MISSES'} it), relative error ${s6.r.relativeError.toFixed(3)}, ` +
      `${s6.cpuSec.toFixed(1)} CPU s, ${s6.r.effort.runs} trajectories, ${s6.r.effort.snapshots} snapshots, ${s6.r.effort.events} events; ` +
      `plain Monte Carlo ${(cpuPerRun * 1e6).toFixed(0)} CPU us per run (${mc.effort.runs} runs), so ${fmt((1 - p6) / (p6 * s6.r.relativeError ** 2))} runs for the same relative error`,
    `risk, N = 30: exact ${fmt(p9)}; adaptive splitting ${fmt(s9.r.probability)} [${fmt(s9.r.ci95[0])}, ${fmt(s9.r.ci95[1])}] ` +
      `(${holds(s9.r, p9) ? 'holds' : 'MISSES'} it), relative error ${s9.r.relativeError.toFixed(3)}, ${s9.cpuSec.toFixed(1)} CPU s`,
  ],
});
