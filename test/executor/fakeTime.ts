import type { Sleep } from '../../src/executor/index.js';

interface Timer {
  atMs: number;
  seq: number;
  fire: () => void;
}

/**
 * Virtual time for the executor: a clock that only moves when a timer fires, and a sleep that
 * registers timers. `run(promise)` lets every pending promise settle, then fires the earliest timer
 * (ties in the order they were armed, as the simulator's event queue orders equal times), and so on
 * until the promise settles. Exact and instant: a 10-minute backoff takes no real time.
 */
export class FakeTime {
  nowMs: number;
  private timers: Timer[] = [];
  private seq = 0;

  constructor(startMs = 0) {
    this.nowMs = startMs;
  }

  readonly clock = { now: (): number => this.nowMs };

  readonly sleep: Sleep = (ms, signal) =>
    new Promise<void>((resolve, reject) => {
      if (signal.aborted) {
        reject(new DOMException('aborted', 'AbortError'));
        return;
      }
      const timer: Timer = {
        atMs: this.nowMs + ms,
        seq: this.seq++,
        fire: () => {
          signal.removeEventListener('abort', onAbort);
          resolve();
        },
      };
      const onAbort = (): void => {
        this.timers = this.timers.filter((t) => t !== timer);
        reject(new DOMException('aborted', 'AbortError'));
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.timers.push(timer);
    });

  /** Timers armed and not yet fired or cancelled. */
  get pending(): number {
    return this.timers.length;
  }

  /** Let every promise that can settle settle (no real timers or I/O are involved). */
  async flush(): Promise<void> {
    await new Promise<void>((r) => setImmediate(r));
  }

  /** Fire timers in (time, arming order) until `promise` settles; returns it. */
  async run<T>(promise: Promise<T>): Promise<T> {
    let settled = false;
    promise.then(
      () => (settled = true),
      () => (settled = true),
    );
    for (;;) {
      await this.flush();
      if (settled) return promise;
      let next: Timer | undefined;
      for (const t of this.timers) if (!next || t.atMs < next.atMs || (t.atMs === next.atMs && t.seq < next.seq)) next = t;
      if (!next) throw new Error('the call is pending with no timer armed: it would never end');
      this.timers = this.timers.filter((t) => t !== next);
      this.nowMs = Math.max(this.nowMs, next.atMs);
      next.fire();
    }
  }

  /** Fire timers up to `untilMs` (inclusive), then stop there. */
  async advanceTo(untilMs: number): Promise<void> {
    for (;;) {
      await this.flush();
      let next: Timer | undefined;
      for (const t of this.timers) if (!next || t.atMs < next.atMs || (t.atMs === next.atMs && t.seq < next.seq)) next = t;
      if (!next || next.atMs > untilMs) break;
      this.timers = this.timers.filter((t) => t !== next);
      this.nowMs = Math.max(this.nowMs, next.atMs);
      next.fire();
    }
    this.nowMs = Math.max(this.nowMs, untilMs);
    await this.flush();
  }
}
