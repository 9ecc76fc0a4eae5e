// A straightforward event-per-hop implementation of the aws-contention-2015 model, the yardstick
// of the AWS sweep benchmark: event objects with a closure in a binary heap of objects ordered by
// (time, seq), one event per network message (read request, read reply, write request, write
// reply) and one per backoff wake-up, clients as objects, normal draws by Box-Muller (spare kept).
// It is what one writes first, without the engine's typed arrays or event folding.
//
// The model (as in experiments/aws-contention-2015.json, after the AWS Architecture Blog's
// "Exponential Backoff And Jitter", 2015): N clients start together; each reads one shared row's
// version and writes it back conditionally, every message crossing a hop of |Normal(10, 2)| ms; a
// conflicting write is retried without limit after a backoff (base 5 ms, cap 2000 ms, exponent
// offset 1; decorrelated jitter from base). Per run: writes, reads and completion time (when the
// last client's write succeeded).

class EventHeap {
  constructor() {
    this.items = [];
    this.seq = 0;
  }
  get size() {
    return this.items.length;
  }
  static less(a, b) {
    return a.time < b.time || (a.time === b.time && a.seq < b.seq);
  }
  push(time, fn) {
    const items = this.items;
    const e = { time, seq: this.seq++, fn };
    items.push(e);
    let i = items.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!EventHeap.less(e, items[p])) break;
      items[i] = items[p];
      i = p;
    }
    items[i] = e;
  }
  pop() {
    const items = this.items;
    const top = items[0];
    const last = items.pop();
    if (items.length > 0) {
      let i = 0;
      const n = items.length;
      for (;;) {
        let c = 2 * i + 1;
        if (c >= n) break;
        if (c + 1 < n && EventHeap.less(items[c + 1], items[c])) c++;
        if (!EventHeap.less(items[c], last)) break;
        items[i] = items[c];
        i = c;
      }
      items[i] = last;
    }
    return top;
  }
}

class Simulation {
  constructor() {
    this.now = 0;
    this.events = new EventHeap();
  }
  schedule(delayMs, fn) {
    this.events.push(this.now + delayMs, fn);
  }
  run() {
    while (this.events.size > 0) {
      const e = this.events.pop();
      this.now = e.time;
      e.fn();
    }
  }
}

/** Seeded uniform generator (mulberry32) and |Normal| by Box-Muller. */
function makeRandom(seed) {
  let s = seed | 0;
  let spare = NaN;
  const uniform = () => {
    s = (s + 0x6d2b79f5) | 0;
    let t = Math.imul(s ^ (s >>> 15), s | 1);
    t = (t + Math.imul(t ^ (t >>> 7), t | 61)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const normal = () => {
    if (spare === spare) {
      const z = spare;
      spare = NaN;
      return z;
    }
    const u1 = 1 - uniform();
    const u2 = uniform();
    const r = Math.sqrt(-2 * Math.log(u1));
    spare = r * Math.sin(2 * Math.PI * u2);
    return r * Math.cos(2 * Math.PI * u2);
  };
  return { uniform, normal };
}

class Backoff {
  constructor(kind, baseMs, capMs, rnd) {
    this.kind = kind;
    this.baseMs = baseMs;
    this.capMs = capMs;
    this.rnd = rnd;
    this.prevMs = baseMs;
  }
  /** Wait before retry `retry` (1 for the first retry); the exponent starts at 1 (exponentOffset 1). */
  next(retry) {
    const ceiling = Math.min(this.capMs, this.baseMs * 2 ** retry);
    switch (this.kind) {
      case 'none':
        return 0;
      case 'exponential':
        return ceiling;
      case 'full-jitter':
        return this.rnd.uniform() * ceiling;
      case 'equal-jitter':
        return ceiling / 2 + (this.rnd.uniform() * ceiling) / 2;
      case 'decorrelated-jitter': {
        const lo = this.baseMs;
        const s = Math.min(this.capMs, lo + this.rnd.uniform() * (3 * this.prevMs - lo));
        this.prevMs = s;
        return s;
      }
      default:
        throw new Error(`unknown backoff ${this.kind}`);
    }
  }
}

class Row {
  constructor() {
    this.version = 0;
    this.reads = 0;
    this.writes = 0;
  }
}

class Client {
  constructor(sim, row, network, backoff, stats) {
    this.sim = sim;
    this.row = row;
    this.network = network;
    this.backoff = backoff;
    this.stats = stats;
    this.retries = 0;
    this.readVersion = -1;
  }
  start() {
    this.sim.schedule(this.network(), () => this.atServerRead());
  }
  atServerRead() {
    this.row.reads++;
    const version = this.row.version;
    this.sim.schedule(this.network(), () => this.readReply(version));
  }
  readReply(version) {
    this.readVersion = version;
    this.sim.schedule(this.network(), () => this.atServerWrite());
  }
  atServerWrite() {
    this.row.writes++;
    const ok = this.row.version === this.readVersion;
    if (ok) this.row.version++;
    this.sim.schedule(this.network(), () => this.writeReply(ok));
  }
  writeReply(ok) {
    if (ok) {
      this.stats.done++;
      this.stats.completionMs = this.sim.now;
      return;
    }
    this.retries++;
    this.sim.schedule(this.backoff.next(this.retries), () => this.start());
  }
}

/** One replication: `clients` clients, one backoff kind. Returns writes, reads and completion time. */
export function runOccReplication(clients, kind, seed) {
  const sim = new Simulation();
  const rnd = makeRandom(seed);
  const network = () => Math.abs(10 + 2 * rnd.normal());
  const row = new Row();
  const stats = { done: 0, completionMs: 0 };
  for (let i = 0; i < clients; i++) {
    const c = new Client(sim, row, network, new Backoff(kind, 5, 2000, rnd), stats);
    sim.schedule(0, () => c.start());
  }
  sim.run();
  return { writes: row.writes, reads: row.reads, completionTimeMs: stats.completionMs };
}

/** The sweep's cells: N = 10, 20, ..., 190 x the five strategies. */
export const OCC_CLIENTS = Array.from({ length: 19 }, (_, i) => 10 * (i + 1));
export const OCC_STRATEGIES = ['none', 'exponential', 'full-jitter', 'equal-jitter', 'decorrelated-jitter'];

/** Run the whole sweep (every cell, `replications` each) and return per-cell mean writes and completion time. */
export function runOccSweep(replications = 100, seed = 2015) {
  const cells = [];
  let totalWrites = 0;
  for (const kind of OCC_STRATEGIES) {
    for (const n of OCC_CLIENTS) {
      let writes = 0;
      let completion = 0;
      for (let r = 0; r < replications; r++) {
        const x = runOccReplication(n, kind, (seed * 1_000_003 + n * 1009 + r * 7919) | 0);
        writes += x.writes;
        completion += x.completionTimeMs;
      }
      totalWrites += writes;
      cells.push({ kind, clients: n, meanWrites: writes / replications, meanCompletionTimeMs: completion / replications });
    }
  }
  return { cells, totalWrites, replications: replications * cells.length };
}
