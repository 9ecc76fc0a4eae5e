import { describe, expect, it } from 'vitest';
import { HandlerTable } from '../../src/model/graph/HandlerTable.js';

describe('HandlerTable', () => {
  it('forgetCalls clears exactly one handler row of call frames, after growth too', () => {
    const H = new HandlerTable(3, 2);
    const hs = [H.alloc(), H.alloc(), H.alloc(), H.alloc(), H.alloc()];
    expect(hs).toEqual([0, 1, 2, 3, 4]);
    for (let i = 0; i < 5 * 3; i++) H.hFrames[i] = 100 + i;
    H.forgetCalls(2);
    const row = (h: number) => Array.from(H.hFrames.subarray(h * 3, h * 3 + 3));
    expect(row(2)).toEqual([-1, -1, -1]);
    expect(row(1)).toEqual([103, 104, 105]);
    expect(row(3)).toEqual([109, 110, 111]);
    // Rows added by growth start with no call followed.
    expect(H.hFrames.length).toBeGreaterThanOrEqual(8 * 3);
    expect(row(5)).toEqual([-1, -1, -1]);
  });
});
