/** Throw unless `binMs` is finite and > 0 and `maxBins` a positive integer. */
export function checkBinning(owner: string, binMs: number, maxBins: number): void {
  if (!(binMs > 0 && binMs < Infinity)) throw new RangeError(`${owner}: binMs must be > 0 (got ${binMs})`);
  if (!(Number.isInteger(maxBins) && maxBins > 0)) {
    throw new RangeError(`${owner}: maxBins must be a positive integer (got ${maxBins})`);
  }
}
