import cliProgress from 'cli-progress';
import { formatDuration } from '../policy/formatDuration.js';
import type { SweepProgress } from '../sweep/runSweep.js';
import type { CliIO } from './cli.js';

/**
 * Sweep progress on stderr: a bar (replications done/total, rate, ETA) on a terminal; otherwise
 * a plain line every few seconds and one at the end.
 */
export class ProgressReporter {
  private bar: cliProgress.SingleBar | null = null;
  private readonly started = Date.now();
  private lastLine = 0;
  private last: SweepProgress | null = null;

  constructor(
    private readonly io: CliIO,
    private readonly name: string,
    private readonly everyMs = 5000,
  ) {}

  update(p: SweepProgress): void {
    this.last = p;
    if (p.total <= 1) return;
    if (this.io.isTTY) {
      if (!this.bar) {
        this.bar = new cliProgress.SingleBar(
          {
            format: `${this.name} [{bar}] {value}/{total} replications | {rate}/s | ETA {eta_formatted} | errored {errored}`,
            stream: process.stderr,
            hideCursor: true,
            clearOnComplete: false,
            etaBuffer: 50,
          },
          cliProgress.Presets.shades_classic,
        );
        this.bar.start(p.total, p.done, { rate: '0', errored: p.errored });
      }
      this.bar.update(p.done, { rate: this.rate(p).toFixed(1), errored: p.errored });
      return;
    }
    const now = Date.now();
    if (now - this.lastLine >= this.everyMs || p.done === p.total) {
      this.lastLine = now;
      this.io.stderr(this.line(p) + '\n');
    }
  }

  private rate(p: SweepProgress): number {
    const sec = (Date.now() - this.started) / 1000;
    return sec > 0 ? (p.done - p.resumed) / sec : 0;
  }

  private line(p: SweepProgress): string {
    const rate = this.rate(p);
    const eta = rate > 0 ? (p.total - p.done) / rate : Infinity;
    const pct = ((100 * p.done) / p.total).toFixed(1);
    return `${this.name}: ${p.done}/${p.total} replications (${pct}%), ${rate.toFixed(1)}/s, ETA ${Number.isFinite(eta) ? formatDuration(eta * 1000) : '?'}${p.errored ? `, ${p.errored} errored` : ''}`;
  }

  stop(): void {
    this.bar?.stop();
    this.bar = null;
  }

  /** The last progress seen (for tests). */
  get latest(): SweepProgress | null {
    return this.last;
  }
}
