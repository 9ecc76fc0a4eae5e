/**
 * Solves A x = b in place by Gaussian elimination with partial pivoting (A dense, n x n, rows as
 * arrays); returns x.
 */
export function solveDense(a: number[][], b: number[]): number[] {
  const n = b.length;
  for (let col = 0; col < n; col++) {
    let pivot = col;
    for (let r = col + 1; r < n; r++) if (Math.abs(a[r]![col]!) > Math.abs(a[pivot]![col]!)) pivot = r;
    if (a[pivot]![col] === 0) throw new Error('singular system');
    [a[col], a[pivot]] = [a[pivot]!, a[col]!];
    [b[col], b[pivot]] = [b[pivot]!, b[col]!];
    for (let r = col + 1; r < n; r++) {
      const f = a[r]![col]! / a[col]![col]!;
      if (f === 0) continue;
      for (let c = col; c < n; c++) a[r]![c]! -= f * a[col]![c]!;
      b[r]! -= f * b[col]!;
    }
  }
  const x = new Array<number>(n).fill(0);
  for (let r = n - 1; r >= 0; r--) {
    let s = b[r]!;
    for (let c = r + 1; c < n; c++) s -= a[r]![c]! * x[c]!;
    x[r] = s / a[r]![r]!;
  }
  return x;
}

/**
 * The probability that a chain on `states` (keys) reaches a collapsed state before an absorbed one,
 * from each state: h = 1 on collapsed states, 0 on absorbed ones, and h(x) = sum over moves of
 * rate / total * h(to) elsewhere, solved as one linear system.
 */
export function hittingProbabilities(
  states: readonly number[][],
  moves: (x: readonly number[]) => Array<{ rate: number; to: number[] }>,
  collapsed: (x: readonly number[]) => boolean,
  absorbed: (x: readonly number[]) => boolean,
): Map<string, number> {
  const open = states.filter((x) => !collapsed(x) && !absorbed(x));
  const index = new Map(open.map((x, i) => [x.join(','), i]));
  const a = open.map((_, i) => open.map((__, j) => (i === j ? 1 : 0)));
  const b = open.map(() => 0);
  open.forEach((x, i) => {
    const ms = moves(x);
    const total = ms.reduce((s, m) => s + m.rate, 0);
    for (const m of ms) {
      const w = m.rate / total;
      if (collapsed(m.to)) b[i]! += w;
      else if (!absorbed(m.to)) {
        const j = index.get(m.to.join(','));
        if (j === undefined) throw new Error(`state ${m.to.join(',')} is outside the listed states`);
        a[i]![j]! -= w;
      }
    }
  });
  const h = solveDense(a, b);
  return new Map(open.map((x, i) => [x.join(','), h[i] as number]));
}
