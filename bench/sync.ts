/**
 * The whole set of sync jobs against the simulator's documented limits (read bucket: burst 100,
 * refill 50 tokens/s; cost 5 for the six portfolio reads): how much of the bucket they use and
 * whether our own pacing earns a 429.
 *
 * The simulator trades in real time; the embedded scheduler runs every account job back to back
 * (interval 0) so their demand exceeds the bucket, through one shared limiter. The catalogue keeps
 * its own interval: it reads the public /api/v1 without the token and spends no account tokens.
 * Counted in this process from undici's diagnostics channels, over the measured window T:
 * - tokens ÷ allowed: read tokens of the answered account requests ÷ (burst + refill × T), the
 *   most the bucket can give in T (1.00 is the ceiling); also beyond the burst ÷ (refill × T);
 * - requests/s achieved, and 429s earned (the aim is 0);
 * - per job: runs and requests, to show that none starves.
 *
 * Run: npm run bench -- sync   (about 40 s)
 */
import { subscribe } from 'node:diagnostics_channel';
import { pino } from 'pino';
import { READ_TIERS } from '../src/api/rate-limit/account-bucket.ts';
import { EmbeddedBus } from '../src/bus/embedded/embedded-bus.ts';
import { TOPICS } from '../src/bus/topics.ts';
import { startSimulator } from '../src/simulator/index.ts';
import { MemoryCheckpointStore } from '../src/sync/checkpoint.ts';
import { startEmbeddedScheduler } from '../src/sync/embedded-scheduler.ts';
import { JOB_NAMES, SYNC_JOBS, type JobName } from '../src/sync/jobs.ts';
import { createSyncVenue } from '../src/sync/venue.ts';
import { Secret } from '../src/util/secret.ts';

const MEASURE_MS = 30_000;
const WARM_UP_MS = 5_000;
const COST_5 = new Set([
  '/trade/v1/portfolio/summary',
  '/trade/v1/portfolio/positions/list',
  '/trade/v1/portfolio/open-orders/list',
  '/trade/v1/portfolio/trades',
  '/trade/v1/portfolio/activities',
  '/trade/v1/portfolio/activities/list',
]);

interface Sent {
  path: string;
  at: number;
  status?: number;
}

const sent = new Map<object, Sent>();
const answered: Sent[] = [];
subscribe('undici:request:create', (message) => {
  const { request } = message as { request: { path: string } };
  sent.set(request, { path: request.path.split('?')[0] ?? '', at: performance.now() });
});
subscribe('undici:request:headers', (message) => {
  const { request, response } = message as { request: object; response: { statusCode: number } };
  const entry = sent.get(request);
  if (!entry) return;
  sent.delete(request);
  answered.push({ ...entry, status: response.statusCode });
});

// Settled PnL marked every 10 s, so the PnL job is not waiting out pnl_not_ready for the whole run.
const sim = await startSimulator({ seed: 1, rate: 20, venue: { pnlIntervalMs: 10_000 } });
await new Promise((resolve) => setTimeout(resolve, WARM_UP_MS)); // some history for the account lists
const venue = createSyncVenue({
  baseUrl: sim.url,
  token: new Secret(sim.demoToken),
  logger: pino({ level: 'silent' }),
});
const bus = new EmbeddedBus();
// Nobody loads these records here: a reader commits them so the bus never holds a publisher back.
await bus.subscribe({ group: 'drain', topics: TOPICS.topics.map((t) => t.name), onBatch: async () => undefined });
const runs = new Map<JobName, number>();
const intervals = Object.fromEntries(
  JOB_NAMES.map((job) => [job, job === 'catalogue' ? SYNC_JOBS.catalogue.intervalMs : 0]),
) as Record<JobName, number>;
const scheduler = startEmbeddedScheduler({
  client: venue,
  bus,
  checkpoints: new MemoryCheckpointStore(),
  account: 'demo',
  intervals,
  logger: pino({ level: 'silent' }),
  onReport: (report) => runs.set(report.job, (runs.get(report.job) ?? 0) + 1),
});
const started = performance.now();
await new Promise((resolve) => setTimeout(resolve, MEASURE_MS));
await scheduler.stop();
const ended = performance.now();
await venue.close();
await bus.close();
await sim.close();

const account = answered.filter((a) => a.path.startsWith('/trade/v1/'));
const admitted = account.filter((a) => a.status !== 429);
const tokens = admitted.reduce((sum, a) => sum + (COST_5.has(a.path) ? 5 : 1), 0);
const seconds = (ended - started) / 1000;
const { capacity, refillPerSecond } = READ_TIERS.authenticated;
const allowed = capacity + refillPerSecond * seconds;
const rateLimited = answered.filter((a) => a.status === 429).length;
const fixed = (n: number, digits = 2): string => n.toFixed(digits);

process.stdout.write(
  `full job set, ${fixed(seconds, 1)} s against the documented read bucket (burst ${capacity}, refill ${refillPerSecond}/s)\n`,
);
process.stdout.write(
  `  tokens spent ÷ allowed (burst + refill × T): ${fixed(tokens / allowed)}   (${tokens} of ${Math.floor(allowed)})\n`,
);
process.stdout.write(
  `  beyond the burst ÷ refill × T:               ${fixed((tokens - capacity) / (refillPerSecond * seconds))}\n`,
);
process.stdout.write(`  account requests/s achieved:                 ${fixed(admitted.length / seconds, 1)}\n`);
process.stdout.write(`  429s earned:                                 ${rateLimited}\n`);
process.stdout.write(`  catalogue requests (public, no account tokens): ${answered.length - account.length}\n`);
process.stdout.write('  runs per job: ' + JOB_NAMES.map((job) => `${job} ${runs.get(job) ?? 0}`).join(', ') + '\n');
const byEndpoint = new Map<string, number>();
for (const a of admitted) {
  const endpoint = a.path.replace(/[0-9a-f-]{36}/, '{id}');
  byEndpoint.set(endpoint, (byEndpoint.get(endpoint) ?? 0) + 1);
}
process.stdout.write(
  '  account requests per endpoint: ' +
    [...byEndpoint].map(([endpoint, n]) => `${endpoint.replace('/trade/v1/', '')} ${n}`).join(', ') +
    '\n',
);
