/** The width of the cascade timeline's bins. */
export const CASCADE_BIN_MS = 1000;
/** Utilisation at or above which a service's bin is in trouble. */
export const TROUBLE_UTILISATION = 0.9;
/** Error rate (failed answers over answers) at or above which a service's bin is in trouble. */
export const TROUBLE_ERROR_RATE = 0.5;
/** How long a service stays out of trouble, after being in it, to count as recovered. */
export const TROUBLE_RECOVERY_MS = 30_000;

/** One service's binned measures, as the cascade timeline reads them. */
export interface ServiceBins {
  name: string;
  /** The bins' width in ms (1 s for the timeline). */
  binMs: number;
  /** Per bin: the mean share of the service's workers busy. */
  utilisation: ArrayLike<number>;
  /** Per bin: answers the service gave (successes and failures). */
  answered: ArrayLike<number>;
  /** Per bin: of those, the failures (refusals included). */
  failed: ArrayLike<number>;
  /** Per bin: backends that crashed in it. */
  crashes: ArrayLike<number>;
}

/** What happened to a service, and when (the start of the bin it happened in). */
export interface CascadeEvent {
  service: string;
  event: 'trouble' | 'crashed' | 'recovered';
  atMs: number;
}

/**
 * Whether bin i of a service is in trouble: its utilisation is at least {@link TROUBLE_UTILISATION}
 * or its error rate at least {@link TROUBLE_ERROR_RATE} (a bin without answers has no error rate).
 */
export function inTrouble(s: ServiceBins, i: number): boolean {
  if ((s.utilisation[i] ?? 0) >= TROUBLE_UTILISATION) return true;
  const answered = s.answered[i] ?? 0;
  return answered > 0 && (s.failed[i] ?? 0) / answered >= TROUBLE_ERROR_RATE;
}

/**
 * The cascade timeline of a graph run (how a failure travelled through its services): for each
 * service, the first bin it was in trouble ({@link inTrouble}), the first bin a backend of it crashed,
 * and the first bin after its first trouble from which it stayed out of trouble for
 * {@link TROUBLE_RECOVERY_MS} (within the bins measured: a service still in trouble, or out of it for
 * less than that at the end, has not recovered). Events are listed by time, then in the order the
 * services are given, then trouble before crash before recovery; a service that never got in
 * trouble nor crashed has none.
 */
export function cascadeTimeline(services: readonly ServiceBins[]): CascadeEvent[] {
  const events: Array<CascadeEvent & { order: number }> = [];
  const rank = { trouble: 0, crashed: 1, recovered: 2 } as const;
  services.forEach((s, k) => {
    if (!(s.binMs > 0)) throw new RangeError(`cascade timeline: ${s.name}'s binMs must be > 0 (got ${s.binMs})`);
    const n = Math.max(s.utilisation.length, s.answered.length, s.failed.length, s.crashes.length);
    const need = Math.ceil(TROUBLE_RECOVERY_MS / s.binMs);
    let first = -1;
    let crashed = -1;
    let recovered = -1;
    let calm = 0;
    for (let i = 0; i < n; i++) {
      if (crashed < 0 && (s.crashes[i] ?? 0) > 0) crashed = i;
      const trouble = inTrouble(s, i);
      if (first < 0) {
        if (trouble) first = i;
        continue;
      }
      if (recovered >= 0) continue;
      calm = trouble ? 0 : calm + 1;
      if (calm >= need) recovered = i - need + 1;
    }
    const push = (event: CascadeEvent['event'], bin: number): void => {
      if (bin >= 0) events.push({ service: s.name, event, atMs: bin * s.binMs, order: k * 3 + rank[event] });
    };
    push('trouble', first);
    push('crashed', crashed);
    push('recovered', recovered);
  });
  events.sort((a, b) => a.atMs - b.atMs || a.order - b.order);
  return events.map(({ service, event, atMs }) => ({ service, event, atMs }));
}

/** Busy workers over workers available, per bin (time-weighted means of each; 0 where none, or not a finite number, were available). */
export function utilisation(busy: readonly number[], workers: readonly number[]): number[] {
  return busy.map((b, i) => {
    const w = workers[i] ?? 0;
    return w > 0 && Number.isFinite(w) ? b / w : 0;
  });
}
