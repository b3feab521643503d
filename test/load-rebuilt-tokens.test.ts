import { describe, expect, it } from 'vitest';
import { batchToken, dedupToken, roundToken, type Batch } from '../src/load/batching/batch.ts';

/** A batch rebuilt from a `before` record that named tokens for `recorded` tables. */
function rebuilt(recorded: Array<[string, string]>): Batch {
  const range = { first: 10n, last: 19n };
  return {
    topic: 't',
    partition: 2,
    range,
    tables: new Map(),
    records: new Map(),
    rowCount: 0,
    maxReceivedUs: 0n,
    rebuilt: { ...range, tokens: new Map(recorded), recordedAtUs: 0n },
  };
}

describe('the tokens a batch rebuilt after a crash is inserted with', () => {
  it('takes the tokens its before rows recorded', () => {
    const batch = rebuilt([['trades', roundToken('trades', 'r1', 'e')]]);
    expect(batchToken(batch, 'trades', 'e')).toBe(roundToken('trades', 'r1', 'e'));
  });

  it("sends dead letters a refused value made after the before rows with the round's token, as before the crash — not a token of their own, which stored them twice", () => {
    const batch = rebuilt([
      ['trades', roundToken('trades', 'r1', 'e')],
      ['quotes', roundToken('quotes', 'r1', 'e')],
    ]);
    expect(batchToken(batch, 'dead_letters', 'e')).toBe(roundToken('dead_letters', 'r1', 'e'));
    expect(batchToken(batch, 'dead_letters', '')).toBe(roundToken('dead_letters', 'r1', 'e')); // the recorded epoch, not today's
  });

  it("keeps the range's own token for a batch recorded alone, and for one never rebuilt", () => {
    const alone = rebuilt([['trades', dedupToken('trades', 't', 2, { first: 10n, last: 19n }, 'e')]]);
    expect(batchToken(alone, 'dead_letters', 'e')).toBe(
      dedupToken('dead_letters', 't', 2, { first: 10n, last: 19n }, 'e'),
    );
    const fresh: Batch = { ...alone, rebuilt: undefined };
    expect(batchToken(fresh, 'trades', 'e')).toBe(dedupToken('trades', 't', 2, { first: 10n, last: 19n }, 'e'));
  });
});
