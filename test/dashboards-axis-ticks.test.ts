import { describe, expect, it } from 'vitest';
// @ts-expect-error -- the page's own JavaScript module, served to the browser as it is
import { formatAxisValue } from '../src/dashboards/client/format.js';

// The built-in page's value axes (issue 37, point 5): a panel's `decimals: 0` rounded 2500 to
// "2K" next to 2000, so an axis read "3K, 2K, 2K, 1K, 500".

const ticks = (values: number[], config: object) => values.map((v) => formatAxisValue(v, config) as string);

describe('value axis ticks', () => {
  it('are unique and human on an axis of thousands whose panel shows no decimals', () => {
    const shown = ticks([3000, 2500, 2000, 1500, 1000, 500, 0], { decimals: 0 });
    expect(shown).toEqual(['3K', '2.5K', '2K', '1.5K', '1K', '500', '0']);
    expect(new Set(shown).size).toBe(shown.length);
  });

  it('keep the unit and cut only trailing zeros', () => {
    expect(ticks([0.25, 0.5], { unit: 'percentunit', decimals: 0 })).toEqual(['25%', '50%']);
    expect(ticks([1500, 250], { unit: 'ms' })).toEqual(['1.5 s', '250 ms']);
    expect(ticks([-12000, 0.455], { unit: 'currencyUSD' })).toEqual(['-$12K', '$0.455']);
    expect(ticks([1_250_000], {})).toEqual(['1.25M']);
  });
});
