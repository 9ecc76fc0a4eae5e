import { describe, expect, it } from 'vitest';
import { ColumnBuffer, NO_F64, NO_I32, NO_U8 } from '../../src/model/typedArrays.js';

describe('ColumnBuffer', () => {
  it('carves aligned, non-overlapping columns out of one buffer and copies the old ones in', () => {
    const a = new ColumnBuffer(3, 2, 2, 2);
    const f1 = a.f64(NO_F64);
    const f2 = a.f64(NO_F64);
    const i1 = a.i32(NO_I32);
    const i2 = a.i32(NO_I32);
    const u1 = a.u8(NO_U8);
    const u2 = a.u8(NO_U8);
    f1.fill(1.5);
    f2.fill(-2.25);
    i1.fill(-7);
    i2.fill(9);
    u1.fill(200);
    u2.fill(3);
    expect([...f1, ...f2, ...i1, ...i2, ...u1, ...u2]).toEqual([1.5, 1.5, 1.5, -2.25, -2.25, -2.25, -7, -7, -7, 9, 9, 9, 200, 200, 200, 3, 3, 3]);
    expect(f1.buffer).toBe(u2.buffer);

    const b = new ColumnBuffer(6, 1, 1, 1);
    expect([...b.f64(f2)]).toEqual([-2.25, -2.25, -2.25, 0, 0, 0]);
    expect([...b.i32(i1)]).toEqual([-7, -7, -7, 0, 0, 0]);
    expect([...b.u8(u1)]).toEqual([200, 200, 200, 0, 0, 0]);
  });

  it('refuses to hand out more columns than it reserved', () => {
    const a = new ColumnBuffer(4, 1, 0, 0);
    a.f64(NO_F64);
    expect(() => a.u8(NO_U8)).toThrow('ColumnBuffer: more columns taken than reserved');
  });
});
