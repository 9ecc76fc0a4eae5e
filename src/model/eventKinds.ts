import { KINDS } from '../engine/eventQueue.js';

/**
 * The event kinds of a run (docs/architecture.md, "Event kinds"). Events dispatch on an integer
 * kind (no closure per event); the event queue carries kinds in [0, {@link KIND_LIMIT}). The model
 * owns the kinds below {@link LEAF_KINDS_FROM}; the leaf gets the range from there
 * (`LeafContext.kindBase`) and numbers its own kinds within it.
 */

/** Workloads: a client starts an operation (a = client); an open loop's next arrival. */
export const K_OP_START = 1;
export const K_ARRIVAL = 2;

/** Frames (a = frame, b = the frame's timer generation): */
/** the backoff's wake-up: the next attempt starts; */
export const K_FRAME_WAKE = 3;
/** the attempt's timeout; */
export const K_FRAME_TIMEOUT = 4;
/** a call arrives at the frame's layer across the hop from above; */
export const K_FRAME_ARRIVE = 5;
/** the frame's answer arrives at its caller across the hop; */
export const K_FRAME_RESPONSE = 6;
/** an admitted attempt is sent after the admission control's delay. */
export const K_FRAME_SEND = 7;
/** Hedging (a = frame, b = the hedge timer's generation): the hedging delay ran out with no answer. */
export const K_HEDGE = 8;

/** Leaf requests (a = request, b = the request's generation): */
/** the request reaches the leaf across the last hop; */
export const K_LEAF_ARRIVE = 9;
/** the leaf's answer reaches the last layer across the hop. */
export const K_LEAF_RESPONSE = 10;

/** The first kind of the leaf's range. */
export const LEAF_KINDS_FROM = 16;
/** Kinds the event queue can carry (its `KINDS`). */
export const KIND_LIMIT = KINDS;
