import type { AddressInfo } from 'node:net';
import { ManualClock, systemClock, type Clock } from './clock.ts';
import { DEFAULT_DEPLOYMENT, type DeploymentConfig } from './http/deployment.ts';
import { createVenueServer } from './http/server.ts';
import { Venue, type Credentials, type VenueOptions } from './venue.ts';

export interface SimulatorOptions {
  /** 0 (default) picks a free port. The server binds 127.0.0.1 only. */
  port?: number;
  seed?: number;
  /** Synthetic book changes per second; 0 for a quiet market. */
  rate?: number;
  /** Demo token secret (every read scope); generated from the seed when absent. */
  token?: string;
  /** Injected time. With a ManualClock nothing runs on timers: call `advance()`. */
  clock?: Clock;
  /** Housekeeping period on the system clock. */
  tickIntervalMs?: number;
  deployment?: Partial<Omit<DeploymentConfig, 'features' | 'limits'>> & {
    features?: Partial<DeploymentConfig['features']>;
    limits?: Partial<DeploymentConfig['limits']>;
  };
  venue?: Partial<Omit<VenueOptions, 'seed' | 'clock' | 'rate' | 'demoToken'>>;
}

export interface SimulatorHandle {
  url: string;
  port: number;
  venue: Venue;
  demoToken: string;
  /** Full-scope credentials of the synthetic traders. */
  traders: Credentials[];
  /** Moves a ManualClock and runs whatever became due. */
  advance(ms: number): void;
  /** Runs whatever is due now (order flow, submissions, expiry, marks). */
  tick(): void;
  close(): Promise<void>;
}

export const DEFAULT_SEED = 1;
export const DEFAULT_RATE = 20;

/** Starts the venue simulator in-process: for tests, benchmarks and the embedded main job. */
export async function startSimulator(options: SimulatorOptions = {}): Promise<SimulatorHandle> {
  const clock = options.clock ?? systemClock;
  const venue = new Venue({
    seed: options.seed ?? DEFAULT_SEED,
    clock,
    rate: options.rate ?? DEFAULT_RATE,
    demoToken: options.token,
    ...options.venue,
  });
  const d = options.deployment ?? {};
  const deployment: DeploymentConfig = {
    ...DEFAULT_DEPLOYMENT,
    ...d,
    features: { ...DEFAULT_DEPLOYMENT.features, ...d.features },
    limits: { ...DEFAULT_DEPLOYMENT.limits, ...d.limits },
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
  const timer = manual ? undefined : setInterval(() => venue.tick(), options.tickIntervalMs ?? 50);
  timer?.unref();

  const server = createVenueServer(venue, deployment);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    venue,
    demoToken: venue.demo.token.secret,
    traders: venue.traderCredentials,
    advance(ms: number) {
      if (!manual) throw new Error('advance() needs a ManualClock');
      manual.advance(ms);
      venue.tick();
    },
    tick: () => venue.tick(),
    close: () =>
      new Promise<void>((resolve, reject) => {
        if (timer) clearInterval(timer);
        venue.exchange.onWorkQueued = undefined;
        server.close((err) => (err ? reject(err) : resolve()));
        server.closeAllConnections();
      }),
  };
}

export { ManualClock, systemClock, type Clock } from './clock.ts';
export type { Venue, Credentials } from './venue.ts';
export type { DeploymentConfig } from './http/deployment.ts';
