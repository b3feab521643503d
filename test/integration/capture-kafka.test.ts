import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Bus } from '../../src/bus/bus.ts';
import { EmbeddedBus } from '../../src/bus/embedded/embedded-bus.ts';
import { KafkaBus } from '../../src/bus/kafka/kafka-bus.ts';
import type { ReceivedRecord } from '../../src/bus/record.ts';
import { createTopicCatalogue, type TopicCatalogue } from '../../src/bus/topics.ts';
import { createLogger } from '../../src/util/log.ts';
import { SMALL_CATALOGUE, steppedRun } from '../capture-helpers.ts';
import { KAFKA_BROKERS, requireService } from './services.ts';

/**
 * The same capture of the same seed, once into the embedded bus and once into real Kafka: what
 * Kafka gives back equals what the embedded bus held, record for record (receive times and our
 * connection ids aside, and the venue's random portfolio stream id).
 */
const catalogue = createTopicCatalogue(`capture-${randomUUID().slice(0, 8)}`);
let kafka: KafkaBus;

beforeAll(async () => {
  await requireService('Kafka', KAFKA_BROKERS[0]!);
  kafka = await KafkaBus.open({
    brokers: KAFKA_BROKERS,
    topics: catalogue.topics,
    log: createLogger('bus.kafka', 'error'),
  });
});

afterAll(async () => {
  await kafka?.close();
});

/** A record as content: what the venue sent and what capture made of it, not when or on which socket we read it. */
function normalised(record: ReceivedRecord): string {
  const { receivedAtUs: _at, source, ...rest } = record;
  const text = JSON.stringify({ ...rest, source: source.type === 'stream' ? { frame: source.frame } : source });
  // Ids a run makes up for itself: the portfolio stream's, and capture's position chains (positions as changes).
  return text
    .replace(/"stream_id\\?":\\?"[0-9a-f-]{36}\\?"/g, '"stream_id":"…"')
    .replace(/("position_chain\\?":\{\\?"id\\?":\\?")[0-9a-f-]{36}/g, '$1…');
}

async function captureOnce(
  bus: Bus,
  topics: TopicCatalogue,
): Promise<{ records: ReceivedRecord[]; published: number }> {
  const run = await steppedRun({
    bus,
    topics,
    frozenStart: true,
    readBackMs: 60_000,
    warmupMs: 5_000,
    simulator: { seed: 13, rate: 30, venue: { catalogue: SMALL_CATALOGUE } },
  });
  await run.run(40_000);
  await run.stop();
  return { records: run.records, published: run.capture.stats().records };
}

describe('capture into Kafka', () => {
  it('publishes to real Kafka what it publishes to the embedded bus for the same seed', async () => {
    const embedded = new EmbeddedBus({ topics: catalogue.topics });
    const local = await captureOnce(embedded, catalogue);
    await embedded.close();
    const remote = await captureOnce(kafka, catalogue);

    expect(remote.records).toHaveLength(remote.published);
    expect(local.records).toHaveLength(local.published);
    const kinds = new Set(remote.records.map((r) => r.kind));
    for (const kind of ['trade', 'book_change', 'book_snapshot', 'quote', 'account_event', 'portfolio_sync'])
      expect(kinds).toContain(kind);
    const a = local.records.map(normalised).sort();
    const b = remote.records.map(normalised).sort();
    expect(b.length).toBeGreaterThan(500);
    expect(b).toEqual(a);
  }, 240_000);
});
