import { Outcome, type OutcomeCode } from '../policy/outcome.js';
import type { Status } from './scenario.js';

/**
 * The outcome code of a status a server, a fault or a script answers (policy/outcome.ts,
 * `ANSWER_OUTCOMES`, spelled as a switch so the answer path does not look a key up).
 */
export function statusOutcome(s: Status): OutcomeCode {
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
    case 409:
      return Outcome.CONFLICT;
    case 502:
      return Outcome.S502;
    case 504:
      return Outcome.S504;
    case 'reset':
      return Outcome.RESET;
    case 'connect-failure':
      return Outcome.CONNECT_FAILURE;
    case 'refused-stream':
      return Outcome.REFUSED_STREAM;
    case 'cancelled':
      return Outcome.CANCELLED;
    case 'unavailable':
      return Outcome.UNAVAILABLE;
    case 'resource-exhausted':
      return Outcome.RESOURCE_EXHAUSTED;
    case 'deadline-exceeded':
      return Outcome.DEADLINE_EXCEEDED;
    case 'aborted':
      return Outcome.ABORTED;
    case 'internal':
      return Outcome.INTERNAL;
    case 'unknown':
      return Outcome.UNKNOWN;
  }
}
