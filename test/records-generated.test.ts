import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { KINDS_INDEX, kindModules, renderKindsIndex } from '../scripts/generate-records.ts';
import { GENERATED_TABLES, withGeneratedBlock } from '../src/records/generated.ts';
import { bookChangeRecord, bookKey, DECLARATIONS, type BookUpdate, keyOf, RECORD_KINDS } from '../src/records/index.ts';
import { TOPICS } from '../src/bus/topics.ts';

describe('what is generated from the kinds declarations is checked in fresh (npm run records:generate)', () => {
  it('the index lists every declaration of src/records/kinds/', () => {
    expect(readFileSync(KINDS_INDEX, 'utf8')).toBe(renderKindsIndex(kindModules()));
  });

  it.each(GENERATED_TABLES)('$file: the $marker table', ({ file, marker, render }) => {
    const text = readFileSync(file, 'utf8');
    expect(text).toBe(withGeneratedBlock(text, marker, render()));
  });

  it('a table names every kind and every topic', () => {
    const topics = GENERATED_TABLES.find((t) => t.marker === 'topics')!.render();
    for (const spec of TOPICS.topics) expect(topics).toContain(`\`${spec.name}\``);
    const rows = GENERATED_TABLES.find((t) => t.marker === 'rows')!.render();
    for (const kind of RECORD_KINDS) expect(rows).toContain(`| \`${kind}\` |`);
  });
});

describe("a kind's key function", () => {
  it('keys market data by condition, the token while the condition is unknown', () => {
    expect(keyOf('trade', { token_id: 't1', price_micro: '1', shares_micro: '1', condition_id: 'c1' })).toBe('c1');
    expect(keyOf('trade', { token_id: 't1', price_micro: '1', shares_micro: '1' }, { conditionId: 'c2' })).toBe('c2');
    expect(keyOf('quote', { token_id: 't1' })).toBe('t1');
  });

  it('keys event-scoped status kinds by event, the others by condition', () => {
    expect(keyOf('market_status', { kind: 'current_market_changed', event_id: 'e1', condition_id: 'c1' })).toBe('e1');
    expect(keyOf('market_status', { kind: 'market_halted', event_id: 'e1', condition_id: 'c1' })).toBe('c1');
    expect(keyOf('market_status', { kind: 'market_halted', event_id: 'e1' })).toBe('e1');
  });

  it('keys account data by the account the producer reads for, and refuses to guess one', () => {
    expect(keyOf('account_event', { kind: 'fill', account: '0xabc' }, { account: '0xabc' })).toBe('0xabc');
    expect(() => keyOf('portfolio_sync', {} as never)).toThrow(/needs its account/);
  });

  it('keys a book change as its first update, as capture batches them (bookKey)', () => {
    const origin = { connectionId: 'm-1', frameNo: 3, receivedAtUs: 1_000n };
    const update: BookUpdate = {
      tokenId: 't9',
      conditionId: '',
      origin,
      venueTime: null,
      sequence: 1n,
      venueSequence: null,
      update: 'delta',
      changes: [],
      raw: null,
    };
    expect(bookChangeRecord([update]).key).toBe('t9');
    expect(bookChangeRecord([update]).key).toBe(bookKey(update));
    expect(bookChangeRecord([{ ...update, conditionId: 'c9' }]).key).toBe('c9');
  });

  it('says in words what it keys by, for the topic table', () => {
    expect(DECLARATIONS.trade.topic.key.what).toBe('condition_id');
    expect(TOPICS.spec(TOPICS.topicFor('fill'))?.key).toBe('account');
  });
});
