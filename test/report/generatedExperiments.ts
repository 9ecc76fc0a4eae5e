import seedrandom from 'seedrandom';

/**
 * Random valid experiment files for the browser test of the charts: seeded sweeps over what users
 * sweep (integer counts, times over decades, timer ticks, categorical kinds), with one to eleven
 * variants, burst, open and closed workloads, server and OCC leaves, one to three layers, capacity
 * dips (shaded windows), timed interventions (rules) and one or two replications. Each is small enough to run in about a second.
 */
export function generatedExperiments(count: number, seed: number): Array<Record<string, unknown>> {
  const rng = seedrandom.alea(String(seed));
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rng() * xs.length)] as T;
  const int = (lo: number, hi: number) => lo + Math.floor(rng() * (hi - lo + 1));
  const out: Array<Record<string, unknown>> = [];
  for (let i = 0; i < count; i++) {
    const workloadKind = pick(['burst', 'open', 'closed'] as const);
    const occ = workloadKind === 'burst' && rng() < 0.4;
    const depth = occ ? 1 : int(1, 3);
    const backoffs = ['none', 'constant', 'exponential', 'full-jitter', 'equal-jitter', 'decorrelated-jitter'];
    const stack = Array.from({ length: depth }, (_, l) => ({
      name: ['app-tier', 'sdk', 'sidecar-proxy'][l],
      policy: {
        ...(occ ? { maxAttempts: 'unlimited' } : { maxAttempts: int(2, 4), perAttemptTimeoutMs: pick([50, 100, 200]) }),
        backoff: { kind: pick(backoffs), baseMs: pick([2, 5, 10]), capMs: 2000 },
      },
    }));
    const clients = int(10, 40);
    const workload =
      workloadKind === 'burst'
        ? { kind: 'burst', clients }
        : workloadKind === 'open'
          ? { kind: 'open', rate: { kind: 'steady', ratePerSec: int(100, 300) }, durationMs: 1000, clients, deadlineMs: 500 }
          : { kind: 'closed', clients, durationMs: 500, thinkMs: 5, deadlineMs: 500 };
    const leaf = occ
      ? { kind: 'occ' }
      : {
          kind: 'server',
          concurrency: int(1, 3),
          queueLimit: 40,
          serviceMs: { dist: 'exponential', mean: pick([2, 4, 8]) },
          ...(rng() < 0.5 ? { capacity: [{ atMs: 100, durationMs: 300, concurrency: 1 }] } : {}),
          ...(rng() < 0.5 ? { faults: [{ fromMs: 0, toMs: 200, probability: 0.5, status: 503 }] } : {}),
        };
    const axes: Array<[string, unknown[]]> = occ
      ? [
          ['workload.clients', [5, 10, 15, 20, 25]],
          ['stack.0.policy.backoff.baseMs', [1, 2, 5, 10, 20, 50, 100]],
          ['stack.0.policy.backoff.kind', ['none', 'exponential', 'full-jitter']],
        ]
      : [
          ['workload.clients', [4, 8, 12, 16, 20, 24, 28, 32, 36, 40, 44]],
          ['stack.0.policy.maxAttempts', [1, 2, 3, 4, 5]],
          ['stack.0.policy.tickMs', [0, 1, 4, 10, 15.6, 100, 1000]],
          ['stack.0.policy.backoff.baseMs', [1, 10, 100, 1000]],
          ['stack.0.policy.backoff.kind', ['none', 'constant', 'full-jitter', 'decorrelated-jitter']],
          ['leaf.concurrency', [1, 2, 3]],
        ];
    const grid: Record<string, unknown[]> = {};
    const nAxes = pick([0, 1, 1, 1, 2]);
    const variantCount = pick([1, 2, 3, 5, 9, 11]);
    const variantPath = depth > 1 ? 'stack.1.policy.maxAttempts' : occ ? 'stack.0.policy.backoff.capMs' : 'stack.0.policy.perAttemptTimeoutMs';
    for (let a = 0; a < nAxes; a++) {
      const [path, values] = pick(axes.filter(([p]) => p !== variantPath && !(p in grid)));
      // At most about 40 cells: a second axis only when the first leaves room.
      const cells = Object.values(grid).reduce((n, v) => n * v.length, Math.max(1, variantCount)) * values.length;
      if (a === 0 || cells <= 40) grid[path] = values;
    }
    const variants: Record<string, Record<string, unknown>> = {};
    if (variantCount > 1) {
      for (let v = 0; v < variantCount; v++) {
        const value = variantPath.endsWith('maxAttempts') ? v + 1 : (v + 1) * (occ ? 100 : 20);
        variants[`${variantPath.split('.').pop()}=${value}`] = { [variantPath]: value };
      }
    }
    out.push({
      name: `generated-${String(i + 1).padStart(2, '0')}`,
      description: `Generated experiment ${i + 1} (seed ${seed}).`,
      seed: int(1, 1_000_000),
      scenario: {
        workload,
        stack,
        leaf,
        network: { hopMs: 1 },
        horizonMs: 60_000,
        metrics: { timeSeriesBinMs: pick([10, 20, 50]), clusteringBinMs: [1, 10] },
        // Every third server experiment turns its top layer's retries off at 300 ms: a rule on its time series (no draw, so the rest is unchanged).
        ...(!occ && i % 3 === 0 ? { interventions: [{ atMs: 300, set: { 'stack.0.policy.maxAttempts': 1 } }] } : {}),
      },
      ...(Object.keys(variants).length > 0 ? { variants } : {}),
      ...(Object.keys(grid).length > 0 ? { sweep: { grid } } : {}),
      replications: pick([1, 2]),
    });
  }
  return out;
}
