/**
 * The query endpoint streaming a large answer: a 5,000,000-row JSONEachRow select through HTTP,
 * read as a client reads it. Prints the time to the first byte, the whole answer's time, and the
 * process's resident memory at rest and at its peak during the answer (sampled every 20 ms); this
 * process holds only chDB and the endpoint. The denominator is the engine alone: the same select
 * streamed by chDB in this process and thrown away, with no HTTP; an answer cannot be faster.
 */
import { loadChdb } from '../src/warehouse/embedded/chdb-library.ts';
import { chdbPathOf } from '../src/warehouse/embedded/data-dir.ts';
import { serveEmbeddedEndpoint } from '../src/warehouse/endpoint/embedded-endpoint.ts';
import { openEmbeddedWarehouse } from '../src/warehouse/warehouse.ts';
import { temporaryDataDir } from '../test/warehouse-fixtures.ts';

const ROWS = 5_000_000;
const SQL = `SELECT number AS n, toString(number) AS s, number * 3 AS m FROM numbers(${ROWS})`;
const MiB = 1024 * 1024;

const { dataDir, remove } = temporaryDataDir();
const warehouse = await openEmbeddedWarehouse(dataDir);
const endpoint = await serveEmbeddedEndpoint(warehouse);

async function engineAlone(): Promise<number> {
  const { Session } = (await loadChdb()).chdb;
  const session = new Session(chdbPathOf(dataDir));
  const started = performance.now();
  let bytes = 0;
  for await (const chunk of session.queryStream(SQL, { format: 'JSONEachRow' })) bytes += chunk.numBytes;
  const ms = performance.now() - started;
  session.close();
  if (bytes === 0) throw new Error('the engine wrote nothing');
  return ms;
}

async function throughEndpoint(): Promise<{ firstByte: number; total: number; bytes: number; peakRss: number }> {
  let peakRss = process.memoryUsage().rss;
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 20);
  const started = performance.now();
  const response = await fetch(`${endpoint.url}/?default_format=JSONEachRow`, { method: 'POST', body: SQL });
  let firstByte = 0;
  let bytes = 0;
  let newlines = 0;
  for await (const chunk of response.body! as AsyncIterable<Uint8Array>) {
    firstByte ||= performance.now() - started;
    bytes += chunk.length;
    for (let at = chunk.indexOf(10); at !== -1; at = chunk.indexOf(10, at + 1)) newlines++;
  }
  const total = performance.now() - started;
  clearInterval(sampler);
  if (newlines !== ROWS) throw new Error(`read ${newlines} rows of ${ROWS}`);
  return { firstByte, total, bytes, peakRss };
}

await engineAlone(); // warm-up: the engine's first run pays for its code and caches
global.gc?.();
const restRss = process.memoryUsage().rss;
const engine = await engineAlone();
const answer = await throughEndpoint();

process.stdout.write(
  [
    `${ROWS.toLocaleString('en')} rows of JSONEachRow, ${(answer.bytes / MiB).toFixed(0)} MiB, through the endpoint over HTTP`,
    `  first byte after ${answer.firstByte.toFixed(0)} ms; whole answer ${answer.total.toFixed(0)} ms (first byte ÷ whole: ${(answer.firstByte / answer.total).toFixed(3)})`,
    `  endpoint ÷ engine alone (same select streamed by chDB here, no HTTP, ${engine.toFixed(0)} ms): ${(answer.total / engine).toFixed(2)}`,
    `  resident memory: ${(restRss / MiB).toFixed(0)} MiB at rest, peak ${(answer.peakRss / MiB).toFixed(0)} MiB during the answer (+${((answer.peakRss - restRss) / MiB).toFixed(0)} MiB for a ${(answer.bytes / MiB).toFixed(0)} MiB answer)`,
  ].join('\n') + '\n',
);

await endpoint.close();
await warehouse.close();
remove();
