// Benchmarks: `npm run bench` (builds first). Prints medians of several runs; these machines are
// shared and noisy, so compare ratios measured in the same run rather than absolute rates.
import { Model } from '../dist/model/Model.js';

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

const policy = {
  maxAttempts: 1,
  deadlineMode: 'propagate',
  backoff: { kind: 'none', baseMs: 0, capMs: 0, multiplier: 2, exponentOffset: 0 },
  tickMs: 0,
  retryOn: ['timeout', '500', '503', '429', 'conflict'],
  idempotency: 'http',
  retryAfter: 'honor',
};

function mm1(ops) {
  return {
    workload: { kind: 'open', rate: { kind: 'steady', ratePerSec: 80 }, durationMs: (ops / 80) * 1000, clients: 1, method: 'GET', permanentErrorFraction: 0 },
    stack: [{ name: 'client', instances: 1, policy }],
    leaf: { kind: 'server', concurrency: 1, queueLimit: 'unlimited', discipline: 'fifo', serviceMs: { dist: 'exponential', mean: 10 }, dropExpired: false, capacity: [], faults: [] },
    network: { hopMs: { dist: 'constant', value: 0 } },
    cancellation: false,
    warmupMs: 0,
    horizonMs: 1e15,
    maxEvents: 1e12,
    metrics: { timeSeriesBinMs: 1e9, clusteringBinMs: [10] },
  };
}

function bench(name, runs, fn) {
  const rates = [];
  let unit = '';
  for (let i = 0; i < runs; i++) {
    const t0 = process.hrtime.bigint();
    const { count, what } = fn(i);
    const sec = Number(process.hrtime.bigint() - t0) / 1e9;
    rates.push(count / sec);
    unit = what;
  }
  console.log(`${name.padEnd(44)} ${(median(rates) / 1e6).toFixed(2).padStart(8)} M ${unit}/s (median of ${runs})`);
  return median(rates);
}

console.log(`node ${process.version}`);
bench('M/M/1 through the full model (1 layer)', 5, (i) => {
  const r = new Model(mm1(2_000_000), { seed: i + 1 }).run();
  return { count: r.operations.offered, what: 'operations' };
});

const { sweepScaling } = await import('./sweepScaling.mjs');
const s = await sweepScaling(3);
console.log(
  `sweep of ${s.tasks} replications: pool 1 worker ${(s.pool1 / 1000).toFixed(2)} s, 2 workers ${(s.pool2 / 1000).toFixed(2)} s ` +
    `(speed-up ${s.poolSpeedup.toFixed(2)}x); control 1 process ${(s.proc1 / 1000).toFixed(2)} s, 2 processes ${(s.proc2 / 1000).toFixed(2)} s ` +
    `(speed-up ${s.controlSpeedup.toFixed(2)}x); pool reaches ${(100 * s.ratio).toFixed(0)}% of the control's speed-up (target >= 90%)`,
);
