import { existsSync, mkdirSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { createClient, type ClickHouseClient } from '@clickhouse/client';
import { VenueClient } from '../api/index.ts';
import { EmbeddedBus } from '../bus/embedded/index.ts';
import { FileCoverageStore, startCapture, type CaptureHandle } from '../capture/index.ts';
import { answerFavicon, createDashboardsApp } from '../dashboards/index.ts';
import { runQueryThroughClient } from '../dashboards/run-query.ts';
import { reconciliationRoute } from '../reconcile/store-through-job.ts';
import { startLoaders, type Loaders } from '../load/index.ts';
import { rederivePending } from '../load/rederive/index.ts';
import { startVenueProcess, type VenueProcess } from '../simulator/process/start-venue-process.ts';
import {
  createSyncVenue,
  startEmbeddedScheduler,
  WarehouseCheckpointStore,
  type EmbeddedScheduler,
  type SyncVenue,
} from '../sync/index.ts';
import { syncLimiter } from '../sync/venue.ts';
import { Reachability } from '../api/reachability.ts';
import { createLogger, type Logger } from '../util/log.ts';
import { Secret } from '../util/secret.ts';
import {
  serveEmbeddedEndpoint,
  DEFAULT_LIMITS,
  type EmbeddedEndpoint,
  type QueryLimits,
} from '../warehouse/endpoint/index.ts';
import { migrateWarehouse } from '../warehouse/schema/index.ts';
import {
  openEmbeddedWarehouse,
  openServerWarehouse,
  type EmbeddedWarehouse,
  type Warehouse,
} from '../warehouse/warehouse.ts';
import type { ServerTarget } from '../warehouse/target.ts';
import { HealthSampler } from './health-sampler.ts';
import { PipelineMetrics } from './metrics.ts';
import { IdentityCheck } from './identity-check.ts';
import { assertPortFree, portRefused } from './http-port.ts';
import { registerVenueMetrics } from './venue-metrics.ts';

/**
 * The main job: venue (the simulator in-process unless a base URL is given) → capture and sync →
 * embedded bus → loaders → ClickHouse (chDB under the data directory, or a server), with the
 * read-only query endpoint, the dashboards and /metrics on one loopback port.
 */
export interface MainJobOptions {
  /** The venue; absent: the simulator runs in this process. */
  baseUrl?: string;
  /** The access token for `baseUrl` (the simulator's demo token otherwise). */
  token?: Secret | null;
  account: string;
  /** chDB data directory; also where the job keeps its small state files in server mode. */
  dataDir: string;
  /** A ClickHouse server instead of chDB. */
  server?: ServerTarget;
  httpPort: number;
  /** Bounds on one answer of the query endpoint (0: none); the time bound stays the endpoint's. */
  resultBounds?: { maxResultRows: number; maxResultBytes: number };
  simulator: { seed: number; rate: number };
  /** Called every sample with the status line's text. */
  onStatus?(line: string): void;
  /**
   * Called once the loopback port answers, before capture waits for the venue's catalogue (a venue
   * that does not answer keeps that wait going; the status line says so meanwhile).
   */
  onServing?(serving: Serving): void;
  /** Aborted during start-up (a signal): stop waiting for the venue; the job comes up idle, to be stopped. */
  signal?: AbortSignal;
  /** How long the stop keeps trying a failing warehouse before it gives up on what is unstored (default 30 s). */
  stopTimeoutMs?: number;
  log?: Logger;
}

export interface Serving {
  readonly dataDir: string;
  /** Base URL of the loopback port: ClickHouse HTTP interface at `/`, `/dashboards/`, `/metrics`. */
  readonly httpUrl: string;
  readonly venueUrl: string;
  /** The built-in venue (its own process), or null for a venue at `baseUrl`. */
  readonly simulator: VenueProcess | null;
  /** Where the built-in venue is saved between runs. */
  readonly venueStateFile: string | null;
}

export interface MainJob extends Serving {
  /** Flushes what was captured into the warehouse and stops everything, in order. */
  stop(): Promise<StopReport>;
}

/** How a stop went: clean, or what stayed undone (records left unloaded, a part that failed to stop). */
export interface StopReport {
  clean: boolean;
  problems: string[];
}

export const LOADER_GROUP = 'tapehouse-loaders';

/** One part to stop, named for the log. Parts stop in the reverse of their start. */
interface StopStep {
  part: string;
  stop(): Promise<string | void>;
}

const SLOW_STOP_MS = 10_000;

export async function startMainJob(options: MainJobOptions): Promise<MainJob> {
  const log = options.log ?? createLogger('run');
  const dataDir = resolve(options.dataDir);
  // A port another process holds is a setting to change, said before anything else starts.
  await assertPortFree(options.httpPort);
  mkdirSync(dataDir, { recursive: true });
  // Each part's stop may name what it left undone (records it could not load).
  const stack: StopStep[] = [];
  const stopAll = async (): Promise<StopReport> => {
    const problems: string[] = [];
    while (stack.length > 0) {
      const { part, stop } = stack.pop()!;
      // A part slow to stop says so, so that a stop that never ends names what it waits for.
      const startedMs = Date.now();
      const slow = setInterval(
        () => log.warn({ part, waitedMs: Date.now() - startedMs }, 'still stopping'),
        SLOW_STOP_MS,
      );
      try {
        const problem = await stop();
        if (problem) problems.push(problem);
      } catch (err) {
        log.error({ err, part }, 'stopping a part failed');
        problems.push(`stopping ${part} failed: ${err instanceof Error ? err.message : String(err)}`);
      } finally {
        clearInterval(slow);
      }
    }
    return { clean: problems.length === 0, problems };
  };

  try {
    // The built-in venue starts in its own process meanwhile (it reads its saved world); stopped
    // last, after everything that reads it.
    const venueStarting = openVenue(options, dataDir, log);
    venueStarting.catch(() => undefined); // awaited below; a failure meanwhile is not unhandled
    stack.push({ part: 'simulator', stop: async () => (await venueStarting.catch(() => null))?.simulator?.close() });
    // Warehouse first: nothing is captured that could not be stored.
    const embedded = options.server ? null : await openEmbeddedWarehouse(dataDir);
    const warehouse: Warehouse = embedded ?? openServerWarehouse(options.server!);
    stack.push({ part: 'warehouse', stop: () => warehouse.close() });
    const applied = await migrateWarehouse(warehouse);
    if (applied.recreated.length > 0)
      log.warn(
        { recreated: applied.recreated },
        'tables or views the schema needs were missing (dropped outside the migrations): created again, empty',
      );
    log.info({ applied: applied.applied.length, fromBaseline: applied.fromBaseline }, 'warehouse schema up to date');
    // Rows stored before a migration added columns get them now, before any loader writes (README, "tapehouse
    // rederive").
    for (const done of await rederivePending(warehouse, (p) => log.info({ ...p }, 'rederive'))) {
      log.info(
        {
          table: done.table,
          partitions: done.partitionsTotal,
          rowsRederived: done.rowsRederived,
          rowsFailed: done.rowsFailed,
          rowsBefore: done.rowsBefore,
          rowsAfter: done.rowsAfter,
        },
        'rederived from _raw',
      );
    }

    const venue = await venueStarting;
    // Every reader of the venue (capture's REST reads, the sync jobs) shares one view of whether it answers.
    const reachability = new Reachability(venue.url, { log: log.child({ part: 'venue' }) });
    stack.push({ part: 'venue reachability', stop: async () => reachability.close() });

    // One bus, and the loaders subscribed to every topic before any producer starts: the embedded
    // bus blocks publishers of a topic nobody reads once it is full.
    const bus = new EmbeddedBus();
    stack.push({ part: 'bus', stop: () => bus.close() });
    // /metrics: the sampler's figures, and the loaders' freshness and insert times as they come.
    const metrics = new PipelineMetrics();
    if (venue.simulator) registerVenueMetrics(metrics.registry, venue.simulator);
    // Checked once more after the loaders stored everything (it is popped after them).
    const identities = new IdentityCheck(warehouse, log.child({ part: 'identities' }));
    stack.push({ part: 'identity check', stop: () => identities.stop() });
    const started: { capture?: CaptureHandle } = {};
    const loaders: Loaders = await startLoaders({
      bus,
      warehouse,
      group: LOADER_GROUP,
      log: log.child({ part: 'load' }),
      onBatchStored: metrics.batchStored,
    });
    stack.push({
      part: 'loaders',
      stop: async () => {
        const outcome = await loaders.stop({ timeoutMs: options.stopTimeoutMs });
        // The gaps capture published last are stored now: its marks may move past their starts.
        await started.capture?.saveMarks();
        if (outcome.unstoredRecords > 0) {
          return `${outcome.unstoredRecords} records stayed unloaded${outcome.reason ? ` (${outcome.reason})` : ''}; the next start records them as a gap`;
        }
      },
    });

    // Capture and sync read the venue as one account: one limiter for both, with the sync jobs'
    // reserve against headers that arrive out of order.
    const limiter = syncLimiter();
    const syncVenue: SyncVenue = createSyncVenue({
      baseUrl: venue.url,
      token: venue.token,
      limiter,
      reachability,
      logger: log.child({ part: 'sync' }),
    });
    stack.push({ part: 'sync venue client', stop: () => syncVenue.close() });
    const scheduler: EmbeddedScheduler = startEmbeddedScheduler({
      client: syncVenue,
      bus,
      checkpoints: new WarehouseCheckpointStore(warehouse),
      account: options.account,
      logger: log.child({ part: 'sync' }),
      onReport: (report) =>
        log.debug(
          { part: 'sync', job: report.job, outcome: report.outcome, records: report.records, pages: report.pages },
          'sync job ran',
        ),
    });
    stack.push({ part: 'sync jobs', stop: () => scheduler.stop() });

    // The loopback port and the figures before capture: while capture waits for a venue that does
    // not answer, the status line, /metrics and `tapehouse status` say so.
    // Stopped after the figures' last sample and the port, before the sync jobs and the loaders.
    stack.push({
      part: 'capture',
      stop: async () => {
        await started.capture?.stop();
        await started.capture?.drain();
      },
    });
    const sampler = new HealthSampler({
      capture: () => started.capture,
      loaders,
      limiter,
      reachability,
      warehouse,
      onStatus: options.onStatus,
      log,
      metrics,
    });
    const port = await servePort(options.httpPort, embedded ?? warehouse, sampler, stack, {
      ...DEFAULT_LIMITS,
      ...options.resultBounds,
    }).catch((err: unknown) => {
      throw portRefused(options.httpPort, err);
    });
    sampler.start();
    stack.push({ part: 'figures', stop: () => sampler.stop() });
    identities.start();
    const serving: Serving = {
      dataDir,
      httpUrl: port.url,
      venueUrl: venue.url,
      simulator: venue.simulator,
      venueStateFile: venue.simulator ? venueStateFileOf(dataDir) : null,
    };
    options.onServing?.(serving);

    started.capture = await startCapture({
      client: new VenueClient({ baseUrl: venue.url, token: venue.token, limiter, reachability }),
      bus,
      baseUrl: venue.url,
      token: venue.token,
      account: options.account,
      coverageStore: new FileCoverageStore(join(dataDir, 'capture-coverage.json')),
      log: log.child({ part: 'capture' }),
      signal: options.signal,
    });

    return { ...serving, stop: stopAll };
  } catch (err) {
    await stopAll();
    throw err;
  }
}

interface Venue {
  url: string;
  token: Secret;
  simulator: VenueProcess | null;
}

/** Where the built-in venue of a data directory is saved (DESIGN.md: a world that goes on). */
export function venueStateFileOf(dataDir: string): string {
  return join(resolve(dataDir), 'venue', 'state.json');
}

/**
 * The venue: the one at `baseUrl`, or the built-in simulator in a process of its own, saved under
 * the data directory and resumed from there at every start (src/simulator/README.md).
 */
async function openVenue(options: MainJobOptions, dataDir: string, log: Logger): Promise<Venue> {
  if (options.baseUrl) {
    if (!options.token)
      throw new Error('a venue at --base-url needs an access token: --token-file F or TAPEHOUSE_TOKEN');
    return { url: options.baseUrl, token: options.token, simulator: null };
  }
  const file = venueStateFileOf(dataDir);
  const simulator = await startVenueProcess(
    // The built-in venue serves the price feeds (the simulator's own default is a deployment without them).
    {
      seed: options.simulator.seed,
      rate: options.simulator.rate,
      lifecycle: true,
      streams: { priceStreams: 'on' },
      state: { file, firstGeneration: newWorldGeneration(dataDir, file) },
    },
    { log: log.child({ part: 'venue' }) },
  );
  log.info(
    { file, generation: simulator.generation, resumed: simulator.resumed, venuePid: simulator.pid },
    simulator.resumed ? 'the built-in venue goes on from its saved world' : 'the built-in venue starts a new world',
  );
  return { url: simulator.url, token: new Secret(simulator.demoToken), simulator };
}

/**
 * The generation of a new built-in world. A data directory whose pipeline already captured a venue
 * but holds no saved one (a tapehouse from before venues were saved, or the state file moved
 * away) may hold the ids of the seed's own streams: a new world there draws other ones (prng.ts).
 */
function newWorldGeneration(dataDir: string, stateFile: string): number {
  if (existsSync(stateFile) || !existsSync(join(dataDir, 'capture-coverage.json'))) return 0;
  return 1 + (Math.floor(Date.now() / 1000) % 1_000_000);
}

/** Serves the loopback port and registers its closing; reads go through their own sessions. */
async function servePort(
  port: number,
  warehouse: Warehouse,
  sampler: HealthSampler,
  stack: StopStep[],
  limits: QueryLimits,
): Promise<{ url: string }> {
  // Embedded: reads go through the endpoint's own read-only sessions, never the writer's session.
  let reader: ClickHouseClient = warehouse.client;
  const dashboards = createDashboardsApp({
    basePath: '/dashboards',
    query: (sql) => runQueryThroughClient(reader)(sql),
  });
  // The one write the port takes: `tapehouse reconcile` storing its run while this job owns the warehouse.
  const reconciliations = reconciliationRoute(warehouse);
  const routes = async (request: IncomingMessage, response: ServerResponse): Promise<boolean> => {
    const path = (request.url ?? '/').split('?')[0];
    if (answerFavicon(path ?? '/', response)) return true;
    if (path === '/metrics') {
      response.writeHead(200, { 'content-type': sampler.metrics.contentType });
      response.end(await sampler.metrics.text());
      return true;
    }
    if (await reconciliations(request, response)) return true;
    return dashboards.handle(request, response);
  };
  if (isEmbedded(warehouse)) {
    const endpoint: EmbeddedEndpoint = await serveEmbeddedEndpoint(warehouse, {
      port,
      routes,
      limits,
      onQuery: sampler.metrics.queryTimer,
    });
    stack.push({ part: 'endpoint', stop: () => endpoint.close() });
    const client = createClient({
      url: endpoint.url,
      clickhouse_settings: { output_format_json_quote_64bit_integers: 1 },
    });
    reader = client;
    stack.push({ part: 'endpoint reader', stop: () => client.close() });
    return { url: endpoint.url };
  }
  const server: Server = createServer((request, response) => {
    routes(request, response)
      .then((done) => {
        if (!done) response.writeHead(404).end('not found\n');
      })
      .catch(() => response.writeHead(500).end());
  });
  await new Promise<void>((ok, fail) => server.once('error', fail).listen(port, '127.0.0.1', ok));
  stack.push({ part: 'http port', stop: () => new Promise<void>((ok) => server.close(() => ok())) });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

function isEmbedded(warehouse: Warehouse): warehouse is EmbeddedWarehouse {
  return warehouse.target.kind === 'chdb';
}
