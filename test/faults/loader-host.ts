/**
 * The scale-out mode's loaders: several members of one consumer group, each its own Kafka client
 * (its own connections and member id, exactly as separate `tapehouse load` processes would be),
 * all writing one warehouse. chDB allows one process per data directory, and a ClickHouse server
 * cannot run here, so the members live in this one process around one chDB; what the fault suite
 * tests — the group protocol, the loaders' state in `loader_offsets`, their inserts — is the real
 * thing. A control port lets the suite make members join and leave, and take the warehouse down
 * (every call refused, as a server that does not answer) and bring it back.
 *
 *   node --import tsx test/faults/loader-host.ts --data-dir D --kafka-brokers B --topic-prefix P [--members N]
 *
 * First stdout line: `loader host ready: control on http://127.0.0.1:PORT`. SIGTERM stops every
 * member cleanly (each stores and commits what it holds), all at once.
 */
import { createServer } from 'node:http';
import { parseArgs } from 'node:util';
import { KafkaBus } from '../../src/bus/kafka/kafka-bus.ts';
import { createTopicCatalogue } from '../../src/bus/topics.ts';
import { defaultLoaderGroup, startLoaders, type Loaders } from '../../src/load/index.ts';
import { createLogger } from '../../src/util/log.ts';
import { loadMigrations, migrate } from '../../src/warehouse/schema/migrations.ts';
import { GROUP_DEDUPLICATION_WINDOW } from '../../src/warehouse/schema/storage-settings.ts';
import { openEmbeddedWarehouse } from '../../src/warehouse/warehouse.ts';
import { flaky } from '../load-warehouses.ts';

const { values } = parseArgs({
  options: {
    'data-dir': { type: 'string' },
    'kafka-brokers': { type: 'string', default: '127.0.0.1:9092' },
    'topic-prefix': { type: 'string', default: 'tapehouse' },
    group: { type: 'string' },
    members: { type: 'string', default: '1' },
  },
});
const dataDir = values['data-dir'];
if (!dataDir) throw new Error('--data-dir is required');

interface Member {
  id: number;
  bus: KafkaBus;
  loaders: Loaders;
}

const log = createLogger('load');
const catalogue = createTopicCatalogue(values['topic-prefix']);
const topics = catalogue.topics.map((spec) => spec.name);
const real = await openEmbeddedWarehouse(dataDir);
// A group of loaders shares these tables, as on a server: the group's deduplication window.
await migrate(real.client, loadMigrations(), { deduplicationWindow: GROUP_DEDUPLICATION_WINDOW });
let down = false;
const warehouse = flaky(real, () => down);
const members: Member[] = [];
let serial = 0;
// Joins and leaves one at a time, as an operator's deployments would.
let changes: Promise<unknown> = Promise.resolve();

// Small batches, so that a backlog of a few seconds fills a member's queue (4 batches) as a large
// backlog does at the default size: the loader then waits for room with records in hand.
const BATCH = { maxRows: 2_000 };

/** A new member; a start that fails (the warehouse is down) is tried again, as a supervisor would restart `tapehouse
 * load`. */
async function join(): Promise<number> {
  const id = ++serial;
  const bus = await KafkaBus.open({
    brokers: values['kafka-brokers'].split(','),
    topics: catalogue.topics,
    clientId: `tapehouse-load-${process.pid}-${id}`,
    log: log.child({ member: id, part: 'bus' }),
  });
  for (let attempt = 1; ; attempt++) {
    try {
      const loaders = await startLoaders({
        bus,
        warehouse,
        group: values.group ?? defaultLoaderGroup(values['topic-prefix']),
        topics,
        batch: BATCH,
        log: log.child({ member: id }),
      });
      members.push({ id, bus, loaders });
      return id;
    } catch (error) {
      if (attempt >= 90) throw error;
      log.warn({ member: id, err: error }, 'loader could not start; trying again');
      await new Promise((resolve) => setTimeout(resolve, 2_000));
    }
  }
}

/** The oldest member leaves with a clean stop (the newest keeps going: a rolling restart). */
async function leave(): Promise<number | undefined> {
  const member = members.shift();
  if (!member) return undefined;
  await member.loaders.stop();
  await member.bus.close();
  return member.id;
}

function serially<T>(change: () => Promise<T>): Promise<T> {
  const next = changes.then(change);
  changes = next.catch(() => undefined);
  return next;
}

for (let i = 0; i < Number(values.members); i++) await join();

const server = createServer((request, response) => {
  const url = new URL(request.url ?? '/', 'http://localhost');
  const answer = (status: number, body: unknown) => {
    response.writeHead(status, { 'content-type': 'application/json' });
    response.end(JSON.stringify(body));
  };
  const route = `${request.method} ${url.pathname}`;
  const done = (work: Promise<unknown>) =>
    work.then(
      (result) => answer(200, { result, members: members.map((m) => m.id), warehouseDown: down }),
      (error: unknown) => answer(500, { error: String(error) }),
    );
  if (route === 'POST /join') return void done(serially(join));
  if (route === 'POST /leave') return void done(serially(leave));
  if (route === 'POST /warehouse') {
    down = url.searchParams.get('down') === '1';
    return void done(Promise.resolve(down ? 'down' : 'up'));
  }
  if (route === 'GET /members') return void done(Promise.resolve(null));
  answer(404, { error: `no ${route}` });
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const address = server.address();
const port = typeof address === 'object' && address ? address.port : 0;
process.stdout.write(`loader host ready: control on http://127.0.0.1:${port} (${members.length} members)\n`);

let stopping = false;
async function stopAll(): Promise<void> {
  if (stopping) return process.exit(1);
  stopping = true;
  down = false;
  server.close();
  await changes;
  // All at once, as a deployment stops its loaders: each stores and commits what it holds.
  const outcomes = await Promise.allSettled(
    members.splice(0).map(async (member) => {
      try {
        await member.loaders.stop();
        await member.bus.close();
      } catch (error) {
        log.error({ member: member.id, err: error }, 'loader member did not stop cleanly');
        throw error;
      }
    }),
  );
  await real.close();
  process.exit(outcomes.every((outcome) => outcome.status === 'fulfilled') ? 0 : 1);
}
process.on('SIGTERM', () => void stopAll());
process.on('SIGINT', () => void stopAll());
