import { describe, expect, it } from 'vitest';
import { INT64_MAX, INT64_MIN, MicroError, parseMicro, checkMicro } from '../src/api/micro.ts';

const amount = { sign: 'non-negative', form: 'string' } as const;
const pnl = { sign: 'signed', form: 'string' } as const;
const integerField = { sign: 'non-negative', form: 'integer' } as const;

describe('_micro values', () => {
  it('reads decimal strings exactly, including leading zeros and the Int64 maximum', () => {
    expect(parseMicro('540000', 'price_micro')).toBe(540_000n);
    expect(parseMicro('0', 'fee_micro')).toBe(0n);
    expect(parseMicro('000123', 'fee_micro')).toBe(123n);
    expect(parseMicro('9223372036854775807', 'volume_micro')).toBe(INT64_MAX);
    // A value a double cannot hold: exactness is the point.
    expect(parseMicro('9007199254740993', 'volume_micro')).toBe(9_007_199_254_740_993n);
  });

  it('accepts negatives only where the field allows them (PnL)', () => {
    expect(parseMicro('-712500', 'profit_loss_micro', pnl)).toBe(-712_500n);
    expect(parseMicro('-9223372036854775808', 'lifetime_pnl_micro', pnl)).toBe(INT64_MIN);
    expect(() => parseMicro('-1', 'price_micro', amount)).toThrow(/price_micro: negative value -1 not allowed/);
  });

  it.each([
    ['1.5', /fractional/],
    ['1e3', /exponent/],
    ['', /empty/],
    ['abc', /not a decimal integer/],
    [' 12', /not a decimal integer/],
    ['+12', /not a decimal integer/],
    ['9223372036854775808', /outside the Int64 range/],
  ])('rejects %j naming the field', (input, reason) => {
    expect(() => parseMicro(input, 'shares_micro', amount)).toThrow(MicroError);
    expect(() => parseMicro(input, 'shares_micro', amount)).toThrow(/^shares_micro: /);
    expect(() => parseMicro(input, 'shares_micro', amount)).toThrow(reason);
  });

  it('refuses JSON numbers where the interface says string: they may already be rounded', () => {
    expect(checkMicro(540000, amount)).toEqual({ ok: false, reason: 'expected a decimal string, received number' });
    expect(checkMicro(null, amount)).toEqual({ ok: false, reason: 'expected a decimal string, received null' });
  });

  it('reads integer-typed fields from safe JSON integers or strings, never fractions or unsafe integers', () => {
    expect(parseMicro(30000, 'max_spread_micro', integerField)).toBe(30_000n);
    expect(parseMicro('30000', 'max_spread_micro', integerField)).toBe(30_000n);
    expect(() => parseMicro(1.5, 'max_spread_micro', integerField)).toThrow(/not a whole number/);
    expect(() => parseMicro(2 ** 53, 'max_spread_micro', integerField)).toThrow(/exceeds 2\^53-1/);
  });
});
