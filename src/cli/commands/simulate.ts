import type { Command } from 'commander';
import type { LifecycleConfig } from '../../simulator/index.ts';
import { DEFAULT_LIFECYCLE } from '../../simulator/lifecycle/config.ts';
import { DEFAULT_STREAMS } from '../../simulator/streams/streams-config.ts';
import { FAULT_PROFILES, type FaultProfileName } from '../../simulator/faults/profile.ts';
import { addSettings, resolveSettings } from '../settings.ts';
import { writableDirectory, writableFile } from '../path-parsers.ts';
import { SettingError } from '../../util/setting-error.ts';

const DEFAULT_PORT = 8790;
/** Served from the command line, positions reads now and then report the exchange unavailable (§2.5). */
const POSITIONS_UNAVAILABLE_RATE = 0.02;

function integer(name: string, min: number): (value: string) => number {
  return (value) => {
    const n = Number(value);
    if (!Number.isSafeInteger(n) || n < min) throw new SettingError(`--${name} must be an integer ≥ ${min}`);
    return n;
  };
}

/** A path flag checked as the settings' paths are: a mistyped one is named before the venue starts. */
function path(name: string, check: (text: string) => string): (value: string) => string {
  return (value) => {
    try {
      return check(value);
    } catch (error) {
      throw new SettingError(`--${name}: ${JSON.stringify(value)} ${(error as Error).message}`);
    }
  };
}

function choice<T extends string>(name: string, allowed: readonly T[]): (value: string) => T {
  return (value) => {
    if (!allowed.includes(value as T)) throw new SettingError(`--${name} must be one of ${allowed.join(', ')}`);
    return value as T;
  };
}

interface SimulateOptions {
  port: number;
  token?: string;
  faults: FaultProfileName;
  groundTruth?: string;
  controlPort?: number;
  bookFrames: 'snapshot' | 'delta';
  heartbeatMs: number;
  priceStreams: 'on' | 'off' | 'absent';
  lifecycle: boolean;
  haltEveryS: number;
  endEventEveryS: number;
  resolutionDelayS: number;
  recurringCadenceS?: number;
  cases: 'wide' | 'narrow';
  stateFile?: string;
  [setting: string]: unknown;
}

const seconds = (ms: number): number => ms / 1000;

const SIMULATE_SETTINGS = ['seed', 'rate'] as const;

/** `tapehouse simulate`: serves the venue simulator on 127.0.0.1 until SIGINT or SIGTERM. */
export function registerSimulate(program: Command): void {
  const command = program.command('simulate').description('serve the venue simulator on 127.0.0.1');
  addSettings(command, SIMULATE_SETTINGS)
    .option('--port <n>', `port to listen on (0 picks a free one)`, integer('port', 0), DEFAULT_PORT)
    .option('--token <t>', 'demo access token (every read scope); generated from the seed when absent')
    .option(
      '--faults <profile>',
      `startup fault profile: ${FAULT_PROFILES.join(', ')}`,
      choice('faults', FAULT_PROFILES),
      'none',
    )
    .option(
      '--ground-truth <dir>',
      'append the ground-truth log (JSONL) to this folder',
      path('ground-truth', writableDirectory),
    )
    .option(
      '--control-port <n>',
      'serve the fault-control endpoint on this loopback port (0 picks one)',
      integer('control-port', 0),
    )
    .option(
      '--book-frames <kind>',
      'orderbook frames: snapshot (every change replaces the ladder) or delta',
      choice('book-frames', ['snapshot', 'delta'] as const),
      DEFAULT_STREAMS.bookFrames,
    )
    .option(
      '--heartbeat-ms <n>',
      'heartbeat period of every stream',
      integer('heartbeat-ms', 1),
      DEFAULT_STREAMS.heartbeatMs,
    )
    .option(
      '--price-streams <on|off|absent>',
      'serve the price streams, answer 503 price_stream_not_configured (off), or route them nowhere: 404 route_not_found (absent)',
      choice('price-streams', ['on', 'off', 'absent'] as const),
      'off',
    )
    .option('--no-lifecycle', 'keep every market in its generated state (no halts, resolutions or recurring rolls)')
    .option(
      '--halt-every-s <n>',
      'mean seconds between two market halts (0: none)',
      integer('halt-every-s', 0),
      seconds(DEFAULT_LIFECYCLE.haltEveryMs),
    )
    .option(
      '--end-event-every-s <n>',
      'mean seconds between two events ending and going to resolution (0: none)',
      integer('end-event-every-s', 0),
      seconds(DEFAULT_LIFECYCLE.endEventEveryMs),
    )
    .option(
      '--resolution-delay-s <n>',
      'seconds from the end of trading to a proposal, and from a proposal to the resolution',
      integer('resolution-delay-s', 0),
      seconds(DEFAULT_LIFECYCLE.challengeMs),
    )
    .option(
      '--cases <wide|narrow>',
      'wide: every case the interface allows (public fills of several makers, DRAFT live markets, late fills, short pages, repeated cursors, …); narrow: one reading of each',
      choice('cases', ['wide', 'narrow'] as const),
      'wide',
    )
    .option(
      '--recurring-cadence-s <n>',
      'cycle length of every recurring event (default: their own, 15 min to 1 day)',
      integer('recurring-cadence-s', 1),
    )
    .option(
      '--state-file <file>',
      'save the venue in this file (every 15 s and at the stop) and go on from it at the next start',
      path('state-file', writableFile),
    )
    .action(async (opts: SimulateOptions) => {
      const { NARROW_CASES, WIDE_CASES, startSimulator } = await import('../../simulator/index.ts');
      const { seed, rate } = resolveSettings(SIMULATE_SETTINGS, opts);
      const lifecycle: Partial<LifecycleConfig> | false = opts.lifecycle && {
        haltEveryMs: opts.haltEveryS * 1000,
        endEventEveryMs: opts.endEventEveryS * 1000,
        proposeAfterMs: opts.resolutionDelayS * 1000,
        challengeMs: opts.resolutionDelayS * 1000,
      };
      const sim = await startSimulator({
        port: opts.port,
        seed,
        token: opts.token,
        rate,
        deployment: { positionsUnavailableRate: POSITIONS_UNAVAILABLE_RATE },
        venue:
          opts.recurringCadenceS === undefined
            ? {}
            : { catalogue: { recurringCadenceSeconds: opts.recurringCadenceS } },
        streams: {
          bookFrames: opts.bookFrames,
          heartbeatMs: opts.heartbeatMs,
          priceStreams: opts.priceStreams === 'off' ? 'unconfigured' : opts.priceStreams,
        },
        lifecycle,
        faults: opts.faults,
        controlPort: opts.controlPort,
        groundTruth: opts.groundTruth === undefined ? undefined : { dir: opts.groundTruth },
        cases: opts.cases === 'narrow' ? NARROW_CASES : WIDE_CASES,
        state: opts.stateFile === undefined ? undefined : { file: opts.stateFile },
      });
      process.stdout.write(`simulator listening on ${sim.url}\n`);
      process.stdout.write(`demo token (orders:read portfolio:read): ${sim.demoToken}\n`);
      if (sim.controlUrl) process.stdout.write(`fault control on ${sim.controlUrl}\n`);
      if (sim.groundTruth) process.stdout.write(`ground truth in ${sim.groundTruth.dir}\n`);
      if (opts.stateFile)
        process.stdout.write(
          `${sim.resumed ? 'resumed from' : 'a new world saved in'} ${opts.stateFile} (generation ${sim.generation})\n`,
        );
      await new Promise<void>((resolve) => {
        const stop = (): void => {
          process.off('SIGINT', stop);
          process.off('SIGTERM', stop);
          void sim.close().then(resolve, resolve);
        };
        process.on('SIGINT', stop);
        process.on('SIGTERM', stop);
      });
    });
}
