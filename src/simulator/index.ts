import type { AddressInfo } from 'node:net';
import { resolveCases } from './cases.ts';
import { ManualClock, systemClock } from './clock.ts';
import { startControlServer, type ControlServer } from './faults/control-server.ts';
import { Faults } from './faults/faults.ts';
import { FaultProfile } from './faults/profile.ts';
import { GroundTruthRecorder } from './ground-truth/recorder.ts';
import { createVenueServer } from './http/server.ts';
import { resolveDeployment, resolveLifecycle, resolveStreams, type SimulatorOptions } from './options.ts';
import { RateLimitTally, type RateLimitCounts } from './http/limits/rate-limit-tally.ts';
import { Prng } from './prng.ts';
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
  /** Every 429 answered so far: earned by clients going past a limit, or injected by a fault. */
  rateLimits(): RateLimitCounts;
  /** Moves a ManualClock and runs whatever became due. */
  advance(ms: number): void;
  /** Runs whatever is due now (lifecycle, order flow, faults, heartbeats, ground truth). */
  tick(): void;
  close(): Promise<void>;
}

export const DEFAULT_SEED = 1;
export const DEFAULT_RATE = 20;

/** Starts the venue simulator in-process: for tests, benchmarks and the embedded main job. */
export async function startSimulator(options: SimulatorOptions = {}): Promise<SimulatorHandle> {
  const clock = options.clock ?? systemClock;
  const seed = options.seed ?? DEFAULT_SEED;
  const venue = new Venue({
    seed,
    clock,
    rate: options.rate ?? DEFAULT_RATE,
    demoToken: options.token,
    ...options.venue,
    lifecycle: resolveLifecycle(options.lifecycle),
    cases: resolveCases(options.cases),
  });
  const deployment = resolveDeployment(options.deployment);
  const tally = new RateLimitTally();
  const streams: StreamServer = new StreamServer(venue, resolveStreams(options.streams), (): boolean => faults.rest.positionsUnavailable(clock.now()), tally);
  const faults: Faults = new Faults(clock, streams, Prng.forStream(seed, 'faults-rest'));
  const profile = new FaultProfile(options.faults ?? 'none', Prng.forStream(seed, 'faults'), (spec) => faults.inject(spec), clock.now());
  const groundTruth = options.groundTruth
    ? new GroundTruthRecorder(venue, streams.feed, faults, options.groundTruth.dir, options.groundTruth.accountingEveryMs ?? 10_000)
    : undefined;

  const tick = (): void => {
    venue.tick();
    const now = clock.now();
    profile.tick(now);
    faults.tick(now);
    streams.tick(now);
    groundTruth?.tick(now);
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
  const control: ControlServer | undefined = options.controlPort === undefined ? undefined : await startControlServer(options.controlPort, faults, streams, tally);
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

export { ManualClock, systemClock, type Clock } from './clock.ts';
export type { Venue, Credentials } from './venue.ts';
export type { DeploymentConfig } from './http/deployment.ts';
export type { SimulatorOptions } from './options.ts';
export type { FaultSpec } from './faults/fault-spec.ts';
export type { FaultRecord } from './faults/faults.ts';
export { DEFAULT_LIFECYCLE, type LifecycleConfig } from './lifecycle/config.ts';
export { DEFAULT_CASES, NARROW_CASES, WIDE_CASES, type InterfaceCases } from './cases.ts';
export { DEFAULT_STREAMS, type StreamsConfig } from './streams/stream-server.ts';
