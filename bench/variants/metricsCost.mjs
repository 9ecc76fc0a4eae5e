// Diagnostic, not a benchmark: how much of the full model's time goes to the streaming metrics.
// Runs M/M/1 (or the storm) through dist/model/Model.js with one metrics class at a time stubbed
// out (its recording method replaced by a no-op on the prototype), in separate child processes,
// and prints the rate beside the unmodified model. An upper bound on what faster metrics can buy.
//   node bench/variants/metricsCost.mjs [mm1|storm]
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const here = fileURLToPath(import.meta.url);
const STUBS = {
  none: [],
  TimeWeightedSeries: [['TimeWeightedSeries', 'set']],
  BinnedSeries: [['BinnedSeries', 'add']],
  StreamingClustering: [['StreamingClustering', 'record']],
  LogHistogram: [['LogHistogram', 'record']],
  all: [
    ['TimeWeightedSeries', 'set'],
    ['BinnedSeries', 'add'],
    ['StreamingClustering', 'record'],
    ['LogHistogram', 'record'],
  ],
};

if (process.argv[2] === '--child') {
  const [, , , which, stub] = process.argv;
  const metrics = await import('../../dist/metrics/index.js');
  for (const [cls, method] of STUBS[stub]) metrics[cls].prototype[method] = function () {};
  const { Model } = await import('../../dist/model/Model.js');
  const { mm1Scenario, stormScenario } = await import('../lib/scenarios.mjs');
  const { median, startClock } = await import('../lib/clock.mjs');
  const sc = which === 'storm' ? stormScenario() : mm1Scenario(1_000_000);
  const rates = [];
  for (let i = 0; i < 5; i++) {
    const c = startClock();
    const r = new Model(sc, { seed: i + 1 }).run();
    const t = c.stop();
    rates.push((which === 'storm' ? r.leafCalls : r.operations.offered) / t.cpuSec);
  }
  process.stdout.write(String(median(rates)));
} else {
  const which = process.argv[2] ?? 'mm1';
  let base = 0;
  for (const stub of Object.keys(STUBS)) {
    const r = spawnSync(process.execPath, [here, '--child', which, stub], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(r.stderr);
    const rate = Number(r.stdout);
    if (stub === 'none') base = rate;
    console.log(`${which}, ${stub === 'none' ? 'unmodified' : `${stub} stubbed`}: ${(rate / 1e6).toFixed(2)} M/s (${((100 * rate) / base).toFixed(0)}%)`);
  }
}
