/**
 * What reading a payload with its kind's schema at the bus boundary costs the loaders' mapping
 * (src/load/mapping/map-delivery.ts), on the two kinds that matter: book changes (most rows: 1 to
 * 11 updates a record, 6 on average, a row per level) and trades (one row a record, every field
 * checked by the schema). For each kind, in one run, on the same decoded records:
 * - `mapDelivery`: the whole mapping of a delivery as the loaders run it (schema parse, mapper,
 *   provenance), per row;
 * - the schema parse alone (`PAYLOAD_SCHEMAS[kind].safeParse`), per row.
 * The parse's share of the mapping, and mapping ÷ (mapping − parse): how much slower mapping is
 * than it would be without the parse (the denominator: the same mapping, parse taken off).
 * Best of 7 rounds each, alternating, so a burst of load elsewhere hits both alike.
 *
 * Run: npm run bench -- load-mapping [--records 20000]   (a few seconds)
 */
import { createTopicCatalogue } from '../src/bus/topics.ts';
import { mapDelivery } from '../src/load/mapping/map-delivery.ts';
import type { RecordKind } from '../src/records/index.ts';
import { PAYLOAD_SCHEMAS } from '../src/records/index.ts';
import { RecordGenerator } from '../test/load-fixtures.ts';

const at = process.argv.indexOf('--records');
const RECORDS = at < 0 ? 20_000 : Number(process.argv[at + 1]);
const ROUNDS = 7;
const SOURCE = { topic: 'bench', partition: 0, group: 'bench' };
const catalogue = createTopicCatalogue('bench');

function elapsedUs(run: () => void): number {
  const start = process.hrtime.bigint();
  run();
  return Number(process.hrtime.bigint() - start) / 1000;
}

for (const kind of ['book_change', 'trade'] as const satisfies readonly RecordKind[]) {
  const records = new RecordGenerator(3, catalogue, { kinds: new Set([kind]), bookUpdates: 11 })
    .take(RECORDS)
    .map((g) => g.record);
  const rows = records.reduce((n, r) => n + mapDelivery({ ok: true, offset: 0n, record: r }, SOURCE).length, 0);
  const schema = PAYLOAD_SCHEMAS[kind];
  let mapUs = Infinity;
  let parseUs = Infinity;
  let sink = 0;
  for (let round = 0; round < ROUNDS; round++) {
    mapUs = Math.min(
      mapUs,
      elapsedUs(() => {
        for (const record of records) sink += mapDelivery({ ok: true, offset: 0n, record }, SOURCE).length;
      }),
    );
    parseUs = Math.min(
      parseUs,
      elapsedUs(() => {
        for (const record of records) sink += schema.safeParse(record.payload).success ? 1 : 0;
      }),
    );
  }
  if (sink < 0) console.log(sink);
  console.log(
    `${kind}: ${RECORDS.toLocaleString('en')} records, ${rows.toLocaleString('en')} rows — mapDelivery ${(mapUs / rows).toFixed(3)} µs a row, ` +
      `of which the schema parse ${(parseUs / rows).toFixed(3)} µs (${((100 * parseUs) / mapUs).toFixed(1)} %); ` +
      `mapping with the parse ÷ without it: ${(mapUs / (mapUs - parseUs)).toFixed(2)}`,
  );
}
