import { Outcome } from '../policy/outcome.js';
import type { Status } from './scenario.js';

/** The outcome code of a status a server, a fault or a script answers. */
export function statusOutcome(s: Status): number {
  switch (s) {
    case 200:
      return Outcome.SUCCESS;
    case 400:
      return Outcome.S400;
    case 404:
      return Outcome.S404;
    case 429:
      return Outcome.S429;
    case 500:
      return Outcome.S500;
    case 503:
      return Outcome.S503;
    case 'timeout':
      return Outcome.TIMEOUT;
  }
}
