/**
 * A bulkhead of a service graph (docs/experiments.md, "Service graphs"): a cap on the concurrent calls from each
 * backend of a calling service to one callee service, shared by every endpoint and call site of the
 * caller that calls it. Each attempt the last layer of a call stack sends holds a slot from its sending
 * until its outcome reaches that layer (an answer across the hop back, its timeout, or its
 * cancellation); an attempt that finds its backend's slots all taken is refused at once, without a
 * call, with the local outcome `bulkhead-full`, which a layer retries only if its policy lists it.
 *
 * As Hystrix's semaphore isolation (Netflix Hystrix 1.5.18, wiki "Configuration",
 * `execution.isolation.semaphore.maxConcurrentRequests`: a request beyond the cap is rejected, not
 * queued) and resilience4j's `SemaphoreBulkhead` (resilience4j 2.4.0,
 * resilience4j-bulkhead/.../internal/SemaphoreBulkhead.java: `tryAcquirePermission` takes a permit
 * or, with the default `maxWaitDuration` of 0 (`BulkheadConfig.DEFAULT_MAX_WAIT_DURATION`), fails at
 * once and the call throws `BulkheadFullException`; `onComplete` releases the permit), one semaphore
 * per calling process: the layers of a call stack have one instance per backend, so has the bulkhead.
 */
export class Bulkhead {
  readonly caller: string;
  readonly callee: string;
  readonly maxConcurrent: number;
  /** Per backend of the caller: the slots taken. */
  readonly taken: Int32Array;
  /** Attempts refused from t = 0 on, the drain included. */
  refused = 0;

  constructor(caller: string, callee: string, maxConcurrent: number, backends: number) {
    this.caller = caller;
    this.callee = callee;
    this.maxConcurrent = maxConcurrent;
    this.taken = new Int32Array(backends);
  }

  /** Whether `backend` has a free slot. */
  free(backend: number): boolean {
    return (this.taken[backend] as number) < this.maxConcurrent;
  }

  take(backend: number): void {
    this.taken[backend] = (this.taken[backend] as number) + 1;
  }

  give(backend: number): void {
    this.taken[backend] = (this.taken[backend] as number) - 1;
  }
}
