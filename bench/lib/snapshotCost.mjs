// What a snapshot of a run costs (src/engine/copyState.ts): shared by `bench/snapshot.mjs` (the
// survey) and the snapshot row of `npm run bench` (bench/cases/snapshot.mjs). A model is begun and
// run to `atMs` in pieces as a risk estimate runs it (Model.begin, Model.runUntil), its state
// surveyed (stateProblems, fresh streams: what keeps it from being a snapshot), then copied
// `copies` times with its original streams: CPU milliseconds per copy (median) and the bytes a
// copy holds (heap and array buffers, after full collections, per copy).
import { runInNewContext } from 'node:vm';
import { setFlagsFromString } from 'node:v8';
import { copyState, stateProblems } from '../../dist/engine/copyState.js';
import { Model } from '../../dist/model/Model.js';
import { median, startClock } from './clock.mjs';

setFlagsFromString('--expose-gc');
/** A full collection (the bytes of a copy are what stays after one). */
const gc = runInNewContext('gc');

/** The heap and array buffers held after full collections. */
export function heldBytes() {
  gc();
  gc();
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
}

/**
 * The scenario `sc` run with `seed` to `atMs`, then copied `copies` times: { model, events (to
 * atMs), runCpuMs (the run to atMs), problems, copyCpuMs (median), copyTimesMs, bytesPerCopy, kept
 * (the copies, when `keep`) }.
 */
export function snapshotCost(sc, { seed = 1, atMs, copies, keep = false }) {
  const model = new Model(sc, { seed });
  const run = startClock();
  model.begin();
  model.runUntil(atMs);
  const runCpuMs = run.stop().cpuSec * 1000;
  const events = eventsSoFar(model);
  const problems = stateProblems({ model }, { rootName: 'model', streams: { kind: 'fresh', seed: 1 } });
  const times = [];
  const kept = [];
  const before = heldBytes();
  for (let i = 0; i < copies; i++) {
    const clock = startClock();
    kept.push(copyState({ model }, { streams: { kind: 'original' } }));
    times.push(clock.stop().cpuSec * 1000);
  }
  const bytesPerCopy = (heldBytes() - before) / copies;
  return { model, events, runCpuMs, problems, copyCpuMs: median(times), copyTimesMs: times, bytesPerCopy, kept: keep ? kept.map((k) => k.model) : [] };
}

/**
 * A copy of `model` (a run of `sc`) with its original streams, made into the objects of a model
 * just built for `sc` (`copyState`'s `into`: the hidden classes of a run built by the
 * constructors): { copy, cpuMs } (building the model included).
 */
export function copyInto(model, sc) {
  const clock = startClock();
  const copy = copyState({ model }, { streams: { kind: 'original' }, into: { model: new Model(sc, { seed: 1 }) } }).model;
  return { copy, cpuMs: clock.stop().cpuSec * 1000 };
}

/** The events a begun model has run so far (its run cursor's count, over every piece). */
export function eventsSoFar(model) {
  return (model.graphRun ?? model).cursor.events;
}

/** `model` run on to `untilMs`: { events (of this piece), cpuSec }. */
export function goOn(model, untilMs) {
  const before = eventsSoFar(model);
  const clock = startClock();
  model.runUntil(untilMs);
  const cpuSec = clock.stop().cpuSec;
  return { events: eventsSoFar(model) - before, cpuSec };
}
