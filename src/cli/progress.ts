import cliProgress from 'cli-progress';
import { formatDuration } from '../policy/formatDuration.js';
import type { SweepProgress } from '../sweep/runSweep.js';
import type { CliIO } from './io.js';

/**
 * The rate and time left of a sweep as printed: `–` for both until a replication of this run has
 * finished (no rate is known before; a bar that said `0/s`, `ETA 0 s` or `ETA INF` would mislead).
 */
export function progressText(p: SweepProgress, elapsedMs: number): { rate: string; eta: string } {
  const ran = p.done - p.resumed;
  if (ran <= 0 || elapsedMs <= 0) return { rate: '–', eta: '–' };
  const perSec = ran / (elapsedMs / 1000);
  return { rate: `${perSec.toFixed(1)}/s`, eta: formatDuration(((p.total - p.done) / perSec) * 1000) };
}

/**
 * Sweep progress on stderr: a bar (replications done/total, rate, ETA) on a terminal; otherwise
 * a plain line every few seconds and one at the end. A run that shows no bar (a single run) and
 * has gone `heartbeatMs` without finishing says so every `heartbeatMs` (`still running, 40 s`),
 * so that long work (a cache warmed by millions of requests, a long horizon) is never silent.
 */
export class ProgressReporter {
  private bar: cliProgress.SingleBar | null = null;
  private readonly started = Date.now();
  private lastLine = 0;
  private last: SweepProgress | null = null;
  private heartbeat: ReturnType<typeof setInterval> | null = null;

  constructor(
    private readonly io: CliIO,
    private readonly name: string,
    private readonly everyMs = 5000,
    private readonly heartbeatMs = 20_000,
    /** What is counted: a sweep's replications, `risk`'s cells. */
    private readonly unit = 'replications',
  ) {}

  update(p: SweepProgress): void {
    this.last = p;
    if (p.total <= 1) {
      if (this.heartbeat === null && p.done < p.total) {
        this.heartbeat = setInterval(() => {
          if (this.last !== null && this.last.done < this.last.total) {
            this.io.stderr(`${this.name}: still running, ${formatDuration(Date.now() - this.started)}\n`);
          }
        }, this.heartbeatMs);
        // The heartbeat never keeps the process alive on its own.
        this.heartbeat.unref();
      }
      return;
    }
    if (this.io.isTTY) {
      if (!this.bar) {
        this.bar = new cliProgress.SingleBar(
          {
            format: `${this.name} [{bar}] {value}/{total} ${this.unit} | {rate} | ETA {eta} | errored {errored}`,
            stream: process.stderr,
            hideCursor: true,
            clearOnComplete: false,
            etaBuffer: 50,
          },
          cliProgress.Presets.shades_classic,
        );
        this.bar.start(p.total, p.done, { ...progressText(p, 0), errored: p.errored });
      }
      this.bar.update(p.done, { ...progressText(p, Date.now() - this.started), errored: p.errored });
      return;
    }
    const now = Date.now();
    if (now - this.lastLine >= this.everyMs || p.done === p.total) {
      this.lastLine = now;
      this.io.stderr(this.line(p) + '\n');
    }
  }

  private line(p: SweepProgress): string {
    const { rate, eta } = progressText(p, Date.now() - this.started);
    const pct = ((100 * p.done) / p.total).toFixed(1);
    return `${this.name}: ${p.done}/${p.total} ${this.unit} (${pct}%), ${rate}, ETA ${eta}${p.errored ? `, ${p.errored} errored` : ''}`;
  }

  stop(): void {
    if (this.heartbeat !== null) clearInterval(this.heartbeat);
    this.heartbeat = null;
    this.bar?.stop();
    this.bar = null;
  }

  /** The last progress seen (for tests). */
  get latest(): SweepProgress | null {
    return this.last;
  }
}
