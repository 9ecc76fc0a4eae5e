import { tableGrew } from '../engine/memoryMeter.js';

/**
 * A growable double-ended queue of integers on a ring buffer (the server's request queue: FIFO
 * takes from the front, LIFO from the back). No allocation per operation.
 */
export class IntDeque {
  private buf: Int32Array;
  private head = 0;
  private n = 0;

  constructor(capacity = 64) {
    let c = 1;
    while (c < capacity) c <<= 1;
    this.buf = new Int32Array(c);
    tableGrew(c * 4);
  }

  get length(): number {
    return this.n;
  }

  pushBack(v: number): void {
    if (this.n === this.buf.length) this.grow();
    this.buf[(this.head + this.n) & (this.buf.length - 1)] = v;
    this.n++;
  }

  /** Remove and return the front element; -1 when empty. */
  popFront(): number {
    if (this.n === 0) return -1;
    const v = this.buf[this.head] as number;
    this.head = (this.head + 1) & (this.buf.length - 1);
    this.n--;
    return v;
  }

  /** Remove and return the back element; -1 when empty. */
  popBack(): number {
    if (this.n === 0) return -1;
    this.n--;
    return this.buf[(this.head + this.n) & (this.buf.length - 1)] as number;
  }

  private grow(): void {
    const old = this.buf;
    const next = new Int32Array(old.length * 2);
    tableGrew(old.length * 4);
    for (let i = 0; i < this.n; i++) next[i] = old[(this.head + i) & (old.length - 1)] as number;
    this.buf = next;
    this.head = 0;
  }
}
