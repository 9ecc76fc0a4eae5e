// The cost of a snapshot of a run (src/engine/copyState.ts, docs/architecture.md "Where state
// lives"): the storm (10,000 clients, 3 layers) and the graph benchmark's scenario (10,000
// clients, 7 services; bench/lib/scenarios.mjs), each begun and run in pieces to 5 s (in the
// storm's fault window and the graph's backend outage), then copied with its original streams
// (bench/lib/snapshotCost.mjs): CPU milliseconds per copy (median) and the bytes a copy holds,
// against the CPU the run took to get there (what a snapshot spares a continuation). Each row
// checks that the state has no problem (nothing a copy cannot reach) and that a copy goes on
// exactly as the original (the same events to 7.5 s).
import { caseOptions, emit, fmtMB, fmtPct } from '../lib/caseArgs.mjs';
import { copyInto, eventsSoFar, goOn, snapshotCost } from '../lib/snapshotCost.mjs';
import { graphScenario, stormScenario } from '../lib/scenarios.mjs';

/** Where the snapshot is taken, and how far the check runs the original and a copy. */
const AT_MS = 5000;
const CHECK_MS = 7500;
/** A copy costs at most this share of the CPU the run took to reach the snapshot. */
const TARGET_SHARE = 0.25;

const { quick, runs } = caseOptions(5, 3);
const rows = [];
const details = [];
for (const [name, make] of [['storm', stormScenario], ['graph', graphScenario]]) {
  const sc = name === 'storm' ? make({ clients: 10_000 }) : make();
  const s = snapshotCost(sc, { atMs: AT_MS, copies: runs, keep: true });
  if (s.problems.length > 0) throw new Error(`snapshot bench: the ${name} state has problems: ${s.problems.join('; ')}`);
  const copy = s.kept[0];
  s.kept.length = 0;
  const into = copyInto(s.model, sc);
  // The copy into a model built runs before the plain copy: the plain copy's hidden classes, once
  // met, make the sites they reach polymorphic for every run after it.
  const original = goOn(s.model, CHECK_MS);
  const intoRun = goOn(into.copy, CHECK_MS);
  const copied = goOn(copy, CHECK_MS);
  for (const [what, m, g] of [['copy', copy, copied], ['copy into a model built', into.copy, intoRun]]) {
    if (g.events !== original.events || eventsSoFar(m) !== eventsSoFar(s.model)) {
      throw new Error(`snapshot bench: the ${name} ${what} ran ${g.events} events where the original ran ${original.events}`);
    }
  }
  const rate = (g) => `${(g.events / g.cpuSec / 1e6).toFixed(2)} M/CPU s`;
  const share = s.copyCpuMs / s.runCpuMs;
  rows.push({
    benchmark: `snapshot: ${name}, 10,000 clients, at ${AT_MS / 1000} s`,
    measured: `${s.copyCpuMs.toFixed(1)} ms, ${fmtMB(s.bytesPerCopy)}`,
    reference: `run to it ${(s.runCpuMs / 1000).toFixed(2)} s`,
    ratio: `${(100 * share).toFixed(1)}%`,
    target: `<= ${fmtPct(TARGET_SHARE)} of the run`,
    pass: share <= TARGET_SHARE,
    values: { copyCpuMs: s.copyCpuMs, copyTimesMs: s.copyTimesMs, bytesPerCopy: s.bytesPerCopy, runCpuMs: s.runCpuMs, events: s.events, copies: runs },
  });
  details.push(
    `snapshot ${name}: ${s.events.toLocaleString('en-US')} events to ${AT_MS} ms; copies ${s.copyTimesMs.map((t) => t.toFixed(1)).join(', ')} CPU ms; ` +
      `then to ${CHECK_MS} ms the original ran ${original.events.toLocaleString('en-US')} events at ${rate(original)}, ` +
      `a copy the same events at ${rate(copied)}, a copy into a model built for it (${into.cpuMs.toFixed(1)} CPU ms) at ${rate(intoRun)}${quick ? ' (quick)' : ''}`,
  );
}
emit({ rows, details });
