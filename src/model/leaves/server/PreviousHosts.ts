/**
 * The backends each last-layer frame tried, for Envoy's previous_hosts retry predicate: up to 4 per
 * frame (a frame's later attempts overwrite them in turn), indexed by frame and growing with the
 * frames. A frame's list is reset by its first attempt.
 */
export class PreviousHosts {
  /** Frame f's backends are hosts[f * 4 .. f * 4 + count(f)). */
  hosts = new Int32Array(0);
  private counts = new Uint8Array(0);

  private ensure(f: number): void {
    if (f < this.counts.length) return;
    let n = Math.max(16, this.counts.length);
    while (n <= f) n *= 2;
    const hosts = new Int32Array(n * 4);
    hosts.set(this.hosts);
    this.hosts = hosts;
    const counts = new Uint8Array(n);
    counts.set(this.counts);
    this.counts = counts;
  }

  /** Frame f starts a call: it has tried nothing yet. */
  reset(f: number): void {
    this.ensure(f);
    this.counts[f] = 0;
  }

  /** How many backends frame f has tried (at most 4). */
  count(f: number): number {
    this.ensure(f);
    return this.counts[f]!;
  }

  /** Frame f's attempt n went to backend b. */
  add(f: number, n: number, b: number): void {
    this.ensure(f);
    const count = this.counts[f]!;
    this.hosts[f * 4 + (count < 4 ? count : (n - 1) % 4)] = b;
    if (count < 4) this.counts[f] = count + 1;
  }
}
