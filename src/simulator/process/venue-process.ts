/**
 * The venue simulator in a process of its own, started by `startVenueProcess` (the main job's
 * built-in venue): off the pipeline's thread and heap. It serves the venue on loopback, saves it
 * in its state file, and stops when told to over the IPC channel, or when that channel closes (the
 * job is gone, killed included): it then saves and exits. Signals from the terminal (Ctrl-C,
 * hang-up) reach the whole process group; they are the job's to act on, so they are ignored here
 * while the job is there: the venue keeps serving until the job's stop has flushed the pipeline.
 */
import { SettingError } from '../../util/setting-error.ts';
import { createLogger, isLogLevel, setLogLevel } from '../../util/log.ts';
import { startSimulator, type SimulatorHandle } from '../index.ts';
import type { FromVenue, ToVenue, VenueProcessOptions } from './protocol.ts';

const log = createLogger('simulator.process');

function send(message: FromVenue): void {
  if (process.connected) process.send?.(message);
}

async function main(): Promise<void> {
  const options = JSON.parse(process.argv[2] ?? '{}') as VenueProcessOptions;
  // The job's log level (its TAPEHOUSE_LOG_LEVEL, as its settings read it).
  const level = process.argv[3] ?? 'info';
  if (isLogLevel(level)) setLogLevel(level);
  // Until the venue serves, a stop has nothing to save.
  let stop = (code: number): Promise<void> => process.exit(code);
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.on(signal, () => {
      if (!process.connected) void stop(0);
    });
  }
  let sim: SimulatorHandle;
  try {
    sim = await startSimulator(options);
  } catch (err) {
    send({
      type: 'failed',
      message: err instanceof Error ? err.message : String(err),
      setting: err instanceof SettingError,
    });
    process.exitCode = 2;
    process.disconnect?.();
    return;
  }
  let stopping: Promise<void> | undefined;
  stop = (code: number): Promise<void> =>
    (stopping ??= sim
      .close()
      .catch((err: unknown) => {
        log.error({ err }, 'the venue did not stop cleanly');
        code = 1;
      })
      .then(() => {
        if (process.connected) process.disconnect?.();
        process.exit(code);
      }));
  process.on('message', (message: ToVenue) => {
    if (message.type === 'stop') void stop(0);
    else if (message.type === 'memory') send({ type: 'memory', id: message.id, usage: process.memoryUsage() });
  });
  process.on('disconnect', () => void stop(0));
  send({ type: 'ready', url: sim.url, demoToken: sim.demoToken, generation: sim.generation, resumed: sim.resumed });
  if (!process.connected) void stop(0);
}

await main();
