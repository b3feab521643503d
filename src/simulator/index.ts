import type { AddressInfo } from 'node:net';
import { createLogger } from '../util/log.ts';
import { resolveCases } from './cases.ts';
import { ManualClock, notBefore, systemClock, type Clock } from './clock.ts';
import { startControlServer, type ControlServer } from './faults/control-server.ts';
import { Faults } from './faults/faults.ts';
import { FaultProfile } from './faults/profile.ts';
import { GroundTruthRecorder } from './ground-truth/recorder.ts';
import { createVenueServer } from './http/server.ts';
import { resolveDeployment, resolveLifecycle, resolveStreams, type SimulatorOptions } from './options.ts';
import { RateLimitTally, type RateLimitCounts } from './access/limits/rate-limit-tally.ts';
import { VenueStateFile, type SavedVenue } from './state/state-file.ts';
import { StreamServer } from './streams/stream-server.ts';
import { Venue, type Credentials } from './venue.ts';

export interface SimulatorHandle {
  url: string;
  /** ws://127.0.0.1:PORT — the WebSocket base of the same server. */
  wsUrl: string;
  port: number;
  venue: Venue;
  demoToken: string;
  /** Full-scope credentials of the synthetic traders. */
  traders: Credentials[];
  streams: StreamServer;
  /** Fault injection in-process: `faults.inject({kind: …})`, `faults.end(id)`, `faults.active()`. */
  faults: Faults;
  /** The fault-control endpoint, when a control port was asked for. */
  controlUrl: string | undefined;
  groundTruth: GroundTruthRecorder | undefined;
  /** Which start of a saved venue this is (0 for a new world or an unsaved venue). */
  generation: number;
  /** Whether it went on from a saved world (`state.file`). */
  resumed: boolean;
  /** Saves the venue now (`state.file`; a no-op without one). */
  saveState(): Promise<void>;
  /** Every 429 answered so far: earned by clients going past a limit, or injected by a fault. */
  rateLimits(): RateLimitCounts;
  /** Moves a ManualClock and runs whatever became due. */
  advance(ms: number): void;
  /** Runs whatever is due now (lifecycle, order flow, faults, heartbeats, ground truth). */
  tick(): void;
  close(): Promise<void>;
}

import { DEFAULT_RATE, DEFAULT_SEED } from './defaults.ts';

export { DEFAULT_RATE, DEFAULT_SEED };
/** A save at rate 20 (16 MB, ten minutes of history) holds the venue's thread for 0.2–0.4 s. */
export const DEFAULT_SAVE_EVERY_MS = 15_000;
/**
 * A venue resumed from a save that was not its last (a kill) numbers orders, fills, activities and
 * book changes from generation × 2³² on: above anything an earlier start could have numbered.
 */
export const SEQUENCE_SPAN = 2 ** 32;

const log = createLogger('simulator');

/** Starts the venue simulator in-process: for tests, benchmarks and the embedded main job. */
export async function startSimulator(options: SimulatorOptions = {}): Promise<SimulatorHandle> {
  // A saved world: read it, and decide this start's generation before anything is drawn.
  const stateFile = options.state ? new VenueStateFile(options.state.file) : undefined;
  const saved = stateFile?.read();
  const generation = saved ? saved.generation + 1 : (options.state?.firstGeneration ?? 0);
  if (generation * SEQUENCE_SPAN > Number.MAX_SAFE_INTEGER)
    throw new Error(
      `venue state ${stateFile?.path}: generation ${generation} is past the last one (move the file away)`,
    );
  const clock = resumedClock(options.clock ?? systemClock, saved);
  const seed = saved?.world.seed ?? options.seed ?? DEFAULT_SEED;
  if (saved && options.seed !== undefined && options.seed !== seed)
    log.info(
      { file: stateFile?.path, seed, asked: options.seed },
      'the saved venue goes on with the seed it was created with; another seed makes a new world only',
    );
  const venue = new Venue(
    {
      seed,
      clock,
      rate: options.rate ?? DEFAULT_RATE,
      demoToken: options.token,
      ...options.venue,
      lifecycle: resolveLifecycle(options.lifecycle),
      cases: resolveCases(options.cases),
      generation,
    },
    saved && { world: saved.world, sequenceFloor: saved.clean ? 0 : generation * SEQUENCE_SPAN },
  );
  const snapshot = (clean: boolean): SavedVenue => ({ generation, clean, world: venue.snapshot() });
  // This start's generation is on disk before anything is served: a kill from here on never lets
  // the next start draw the same ids.
  stateFile?.saveSync(snapshot(false));
  const saveEveryMs = options.state?.saveEveryMs ?? DEFAULT_SAVE_EVERY_MS;
  let nextSaveMs = clock.now() + saveEveryMs;
  const saveState = async (): Promise<void> => {
    await stateFile?.save(snapshot(false));
  };
  const deployment = resolveDeployment(options.deployment);
  const tally = new RateLimitTally();
  const streams: StreamServer = new StreamServer(
    venue,
    resolveStreams(options.streams),
    (): boolean => faults.rest.positionsUnavailable(clock.now()),
    tally,
  );
  const faults: Faults = new Faults(clock, streams, venue.prng('faults-rest'));
  const profile = new FaultProfile(
    options.faults ?? 'none',
    venue.prng('faults'),
    (spec) => faults.inject(spec),
    clock.now(),
  );
  const groundTruth = options.groundTruth
    ? new GroundTruthRecorder(
        venue,
        streams.feed,
        faults,
        options.groundTruth.dir,
        options.groundTruth.accountingEveryMs ?? 10_000,
      )
    : undefined;

  const tick = (): void => {
    venue.tick();
    const now = clock.now();
    profile.tick(now);
    faults.tick(now);
    streams.tick(now);
    groundTruth?.tick(now);
    if (stateFile && now >= nextSaveMs) {
      nextSaveMs = now + saveEveryMs;
      saveState().catch((err: unknown) =>
        log.error({ err, file: stateFile.path }, 'saving the venue failed; the next save tries again'),
      );
    }
  };

  // Accepted orders and cancel-alls are worked off right after the response, not on the next tick.
  let scheduled = false;
  venue.exchange.onWorkQueued = () => {
    if (scheduled) return;
    scheduled = true;
    setImmediate(() => {
      scheduled = false;
      venue.exchange.processDue();
    });
  };
  const manual = clock instanceof ManualClock ? clock : undefined;
  const timer = manual ? undefined : setInterval(tick, options.tickIntervalMs ?? 50);
  timer?.unref();

  const server = createVenueServer(venue, deployment, { streams, faults: faults.rest, tally });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const control: ControlServer | undefined =
    options.controlPort === undefined
      ? undefined
      : await startControlServer(options.controlPort, faults, streams, tally);
  let closing: Promise<void> | undefined;
  const close = async (): Promise<void> => {
    if (timer) clearInterval(timer);
    venue.exchange.onWorkQueued = undefined;
    faults.endAll();
    groundTruth?.close();
    streams.close();
    await control?.close();
    await new Promise<void>((resolve, reject) => {
      server.close((err) => (err ? reject(err) : resolve()));
      server.closeAllConnections();
    });
    // Last: nothing changes the world any more, so the next start goes on exactly from here.
    if (stateFile) {
      await stateFile.settled();
      stateFile.saveSync(snapshot(true));
    }
  };
  return {
    url: `http://127.0.0.1:${port}`,
    wsUrl: `ws://127.0.0.1:${port}`,
    port,
    venue,
    demoToken: venue.demo.token.secret,
    traders: venue.traderCredentials,
    streams,
    faults,
    controlUrl: control?.url,
    groundTruth,
    generation,
    resumed: saved !== undefined,
    saveState,
    rateLimits: () => tally.counts(),
    advance(ms: number) {
      if (!manual) throw new Error('advance() needs a ManualClock');
      manual.advance(ms);
      tick();
    },
    tick,
    /** Stops everything; a second call waits for the first. */
    close: () => (closing ??= close()),
  };
}

/**
 * Venue time of a resumed world goes on from the wall clock (README, "A world that goes on"); a
 * clock behind the save is moved up to it (a ManualClock) or read as never earlier (any other).
 */
function resumedClock(clock: Clock, saved: SavedVenue | undefined): Clock {
  if (!saved || clock.now() >= saved.world.clockMs) return clock;
  if (clock instanceof ManualClock) {
    clock.set(saved.world.clockMs);
    return clock;
  }
  log.warn(
    { behindMs: saved.world.clockMs - clock.now() },
    'the clock reads earlier than the saved venue: venue time holds at the save until it catches up',
  );
  return notBefore(clock, saved.world.clockMs);
}

export { ManualClock, systemClock, type Clock } from './clock.ts';
export type { Venue, Credentials } from './venue.ts';
export type { DeploymentConfig } from './http/deployment.ts';
export type { SimulatorOptions } from './options.ts';
export type { FaultSpec } from './faults/fault-spec.ts';
export type { FaultRecord } from './faults/faults.ts';
export { DEFAULT_LIFECYCLE, type LifecycleConfig } from './lifecycle/config.ts';
export { DEFAULT_CASES, NARROW_CASES, WIDE_CASES, type InterfaceCases } from './cases.ts';
export { DEFAULT_STREAMS, type StreamsConfig } from './streams/stream-server.ts';
