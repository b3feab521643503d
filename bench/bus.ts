/**
 * Bus benchmark (`npx tsx bench/bus.ts`, well under 20 s):
 * - the record codec (encode + decode) against bare JSON.stringify + JSON.parse of the same
 *   payloads, in records/s and MB/s of the bytes each produces;
 * - records/s through the embedded bus, publisher to committing consumer.
 * All figures come from this one run on this machine.
 */
import { positionAfter } from '../src/bus/bus.ts';
import { EmbeddedBus } from '../src/bus/embedded/embedded-bus.ts';
import { decodeRecord, encodeRecord, type ReceivedRecord, type Json } from '../src/bus/record.ts';
import { TOPICS } from '../src/bus/topics.ts';

const CODEC_SECONDS = 3;

/** A mix like the market stream's: mostly trades and quotes, some full-depth book snapshots. */
function sampleRecords(count: number): ReceivedRecord[] {
  const records: ReceivedRecord[] = [];
  for (let i = 0; i < count; i++) {
    const condition = `0x${(i % 97).toString(16).padStart(64, 'a')}`;
    const token = `${condition.slice(0, 40)}${i % 2}`;
    let payload: Json;
    let kind: ReceivedRecord['kind'];
    if (i % 10 === 0) {
      kind = 'book_snapshot';
      const levels = (side: number) =>
        Array.from({ length: 40 }, (_, l) => ({
          price_micro: String(500_000 + side * (l + 1) * 1_000),
          size_micro: String(1_000_000 * (l + 3)),
        }));
      payload = { kind: 'snapshot', token_id: token, bids: levels(-1), asks: levels(1) };
    } else if (i % 3 === 0) {
      kind = 'quote';
      payload = { token_id: token, best_bid_micro: '491000', best_ask_micro: '509000' };
    } else {
      kind = 'trade';
      payload = {
        trade_id: `t-${i}`,
        token_id: token,
        side: i % 2 ? 'BUY' : 'SELL',
        price_micro: String(400_000 + (i % 2000)),
        shares_micro: String(1_000_000 + i),
        executed_at: '2025-03-01T12:00:00.123Z',
      };
    }
    const raw = JSON.stringify({ channel: kind === 'trade' ? 'trades' : 'orderbook', data: payload });
    records.push({
      kind,
      key: condition,
      venueTime: '2025-03-01T12:00:00.123Z',
      receivedAtUs: 1_740_830_400_123_456n + BigInt(i),
      source: { type: 'stream', connection: 'market-1', frame: i },
      payload,
      raw,
    });
  }
  return records;
}

/** Runs `pass` over the sample until `seconds` have gone by; returns passes/s and bytes/s. */
function measure(seconds: number, pass: () => number): { passesPerSecond: number; bytesPerSecond: number } {
  pass(); // warm-up
  let passes = 0;
  let bytes = 0;
  const start = performance.now();
  while (performance.now() - start < seconds * 1000) {
    bytes += pass();
    passes++;
  }
  const elapsed = (performance.now() - start) / 1000;
  return { passesPerSecond: passes / elapsed, bytesPerSecond: bytes / elapsed };
}

function benchCodec(records: readonly ReceivedRecord[]): void {
  let sink = 0;
  const codec = measure(CODEC_SECONDS, () => {
    let bytes = 0;
    for (const record of records) {
      const text = encodeRecord(record);
      bytes += text.length;
      const decoded = decodeRecord(text);
      if (decoded.ok) sink += decoded.record.key.length;
    }
    return bytes;
  });
  const bare = measure(CODEC_SECONDS, () => {
    let bytes = 0;
    for (const record of records) {
      const text = JSON.stringify(record.payload);
      bytes += text.length;
      if (JSON.parse(text) !== null) sink++;
    }
    return bytes;
  });
  const n = records.length;
  const mb = (x: number) => (x / 1e6).toFixed(1);
  const k = (x: number) => Math.round((x * n) / 1000);
  console.log(
    `codec encode+decode      ${k(codec.passesPerSecond)}k records/s  ${mb(codec.bytesPerSecond)} MB/s (envelope: payload + raw frame + fields)`,
  );
  console.log(
    `bare JSON stringify+parse ${k(bare.passesPerSecond)}k payloads/s ${mb(bare.bytesPerSecond)} MB/s (payload only)`,
  );
  console.log(
    `ratio codec/bare          ${(codec.bytesPerSecond / bare.bytesPerSecond).toFixed(2)} by MB/s, ${(codec.passesPerSecond / bare.passesPerSecond).toFixed(2)} by records/s`,
  );
  if (sink < 0) console.log(sink);
}

async function benchEmbedded(records: readonly ReceivedRecord[], rounds: number): Promise<void> {
  const topic = TOPICS.topicFor('trade');
  const bus = new EmbeddedBus();
  const total = records.length * rounds;
  let consumed = 0;
  let finished!: () => void;
  const done = new Promise<void>((resolve) => (finished = resolve));
  const subscription = await bus.subscribe({
    group: 'bench',
    topics: [topic],
    onBatch: async (batch) => {
      consumed += batch.messages.length;
      await subscription.commit([positionAfter(batch)]);
      if (consumed === total) finished();
    },
  });
  const start = performance.now();
  for (let round = 0; round < rounds; round++) {
    for (let i = 0; i < records.length; i += 500) await bus.publish(topic, records.slice(i, i + 500));
  }
  await done;
  const seconds = (performance.now() - start) / 1000;
  const lagAtEnd = (await bus.lag('bench', [topic])).reduce((sum, p) => sum + p.lag, 0n);
  await bus.close();
  console.log(
    `embedded bus              ${Math.round(total / seconds / 1000)}k records/s published, delivered and committed (${total} records, ${seconds.toFixed(1)} s, lag at end ${lagAtEnd})`,
  );
}

const records = sampleRecords(20_000);
const meanBytes = records.reduce((sum, r) => sum + encodeRecord(r).length, 0) / records.length;
console.log(`sample: ${records.length} records, mean ${Math.round(meanBytes)} bytes encoded`);
benchCodec(records);
await benchEmbedded(records, 10);
