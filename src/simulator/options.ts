import type { InterfaceCases } from './cases.ts';
import type { Clock } from './clock.ts';
import { DEFAULT_DEPLOYMENT, type DeploymentConfig } from './http/deployment.ts';
import { DEFAULT_LIFECYCLE, type LifecycleConfig } from './lifecycle/config.ts';
import type { FaultProfileName } from './faults/profile.ts';
import type { StreamLimits } from './streams/protocol.ts';
import { DEFAULT_STREAMS, type StreamsConfig } from './streams/stream-server.ts';
import type { VenueOptions } from './venue.ts';

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
  venue?: Partial<Omit<VenueOptions, 'seed' | 'clock' | 'rate' | 'demoToken' | 'lifecycle' | 'cases' | 'generation'>>;
  /** The interface's cases the venue shows (cases.ts): DEFAULT_CASES, changed by these; NARROW_CASES for exact tests.
   */
  cases?: Partial<InterfaceCases>;
  /** Streams: heartbeat period, book frames (snapshot or delta), portfolio cadence, price feeds, limits. */
  streams?: Partial<Omit<StreamsConfig, 'limits'>> & { limits?: Partial<StreamLimits> };
  /** Market lifecycle on the clock: `true` for the defaults, or a cadence. Off when absent. */
  lifecycle?: boolean | Partial<LifecycleConfig>;
  /** Startup fault profile (default none); faults can also be injected through `faults` and the control port. */
  faults?: FaultProfileName;
  /** Port of the fault-control endpoint on 127.0.0.1 (0 picks one); no control endpoint when absent. */
  controlPort?: number;
  /** Appends the ground-truth log to this folder; the accounting state every `accountingEveryMs` (10 s). */
  groundTruth?: { dir: string; accountingEveryMs?: number };
  /**
   * Saves the venue in `file` every `saveEveryMs` (15 s) of venue time and at `close()`, and goes
   * on from it at the next start (README, "A world that goes on"). `firstGeneration` numbers a new
   * world (no file yet): 0 draws the seed's own streams.
   */
  state?: { file: string; saveEveryMs?: number; firstGeneration?: number };
}

export function resolveDeployment(d: SimulatorOptions['deployment'] = {}): DeploymentConfig {
  return {
    ...DEFAULT_DEPLOYMENT,
    ...d,
    features: { ...DEFAULT_DEPLOYMENT.features, ...d.features },
    limits: { ...DEFAULT_DEPLOYMENT.limits, ...d.limits },
  };
}

export function resolveStreams(s: SimulatorOptions['streams'] = {}): StreamsConfig {
  return { ...DEFAULT_STREAMS, ...s, limits: { ...DEFAULT_STREAMS.limits, ...s.limits } };
}

export function resolveLifecycle(l: SimulatorOptions['lifecycle']): LifecycleConfig | undefined {
  if (!l) return undefined;
  return { ...DEFAULT_LIFECYCLE, ...(l === true ? {} : l) };
}
