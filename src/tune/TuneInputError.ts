/** A search that cannot start (round 0 alone exceeds the run budget, no valid candidate). */
export class TuneInputError extends Error {
  constructor(readonly problems: string[]) {
    super(problems.join('\n'));
  }
}
