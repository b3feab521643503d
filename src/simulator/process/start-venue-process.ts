import { fork, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createLogger, logLevel, type Logger } from '../../util/log.ts';
import { COMPILED } from '../../util/package-root.ts';
import { SettingError } from '../../util/setting-error.ts';
import type { FromVenue, ToVenue, VenueProcessOptions } from './protocol.ts';

// The child runs what this process runs: the compiled JavaScript, or the TypeScript sources
// through tsx's loader.
const ENTRY = fileURLToPath(new URL(COMPILED ? './venue-process.js' : './venue-process.ts', import.meta.url));
const LOADER_ARGS = COMPILED ? [] : ['--import', pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href];

/** The venue simulator running in its own process (venue-process.ts). */
export interface VenueProcess {
  readonly url: string;
  readonly wsUrl: string;
  readonly demoToken: string;
  /** The process serving now (a new one after a restart). */
  readonly pid: number | undefined;
  /** Which start of the saved venue is serving (prng.ts). */
  readonly generation: number;
  /** Whether the first start went on from a saved world. */
  readonly resumed: boolean;
  /** The venue process's memory, or undefined when it does not answer within a second. */
  memory(): Promise<NodeJS.MemoryUsage | undefined>;
  /** Asks it to stop (it saves the venue), and waits until it has. */
  close(): Promise<void>;
}

export interface VenueProcessSettings {
  log?: Logger;
  /** How long a start may take, a large saved venue read included (default 120 s). */
  readyTimeoutMs?: number;
  /** How many times a venue process that ends unasked is started again, on the same port (default 5). */
  maxRestarts?: number;
}

type Ready = Extract<FromVenue, { type: 'ready' }>;

/**
 * Starts the venue in a process of its own and waits until it serves. A process that ends without
 * being asked to (a crash, a kill) is started again on the same port, resuming from its last save,
 * so the clients' address stays good; after `maxRestarts` the venue stays down and the pipeline
 * says so (venue unreachable).
 */
export async function startVenueProcess(
  options: VenueProcessOptions,
  settings: VenueProcessSettings = {},
): Promise<VenueProcess> {
  const log = settings.log ?? createLogger('simulator.process');
  let { child, ready } = await spawnVenue(options, settings.readyTimeoutMs ?? 120_000);
  const port = Number(new URL(ready.url).port);
  const first = ready;
  let closing = false;
  let restarts = 0;
  let nextId = 0;
  const answers = new Map<number, (usage: NodeJS.MemoryUsage) => void>();

  const watch = (proc: ChildProcess): void => {
    proc.on('message', (message: FromVenue) => {
      if (message.type === 'memory') answers.get(message.id)?.(message.usage);
    });
    proc.once('exit', (code, signal) => {
      if (closing || proc !== child) return;
      if (restarts >= (settings.maxRestarts ?? 5)) {
        log.error({ code, signal, restarts }, 'the built-in venue stopped unasked too often: it stays down');
        return;
      }
      restarts++;
      log.error(
        { code, signal, venuePid: proc.pid },
        'the built-in venue stopped unasked: starting it again from its last save',
      );
      setTimeout(() => {
        if (closing) return;
        spawnVenue({ ...options, port }, settings.readyTimeoutMs ?? 120_000).then(
          (next) => {
            if (closing) return void next.child.kill('SIGTERM');
            child = next.child;
            ready = next.ready;
            watch(child);
            log.info({ venuePid: child.pid, generation: ready.generation }, 'the built-in venue serves again');
          },
          (err: unknown) => log.error({ err }, 'the built-in venue could not be started again'),
        );
      }, 1_000).unref();
    });
  };
  watch(child);

  return {
    url: first.url,
    wsUrl: first.url.replace(/^http/, 'ws'),
    demoToken: first.demoToken,
    get pid() {
      return child.pid;
    },
    get generation() {
      return ready.generation;
    },
    resumed: first.resumed,
    memory: () =>
      new Promise((resolve) => {
        const id = nextId++;
        const done = (usage: NodeJS.MemoryUsage | undefined): void => {
          answers.delete(id);
          clearTimeout(timer);
          resolve(usage);
        };
        const timer = setTimeout(() => done(undefined), 1_000);
        answers.set(id, done);
        if (!sendTo(child, { type: 'memory', id })) done(undefined);
      }),
    close: async () => {
      closing = true;
      await stopChild(child);
    },
  };
}

function sendTo(child: ChildProcess, message: ToVenue): boolean {
  if (!child.connected) return false;
  child.send(message);
  return true;
}

/** One venue process, up and serving; a start that fails rejects with its reason (a SettingError for a bad state file).
 */
function spawnVenue(options: VenueProcessOptions, timeoutMs: number): Promise<{ child: ChildProcess; ready: Ready }> {
  // The process's log level travels with it: nothing below the CLI reads the environment.
  const child = fork(ENTRY, [JSON.stringify(options), logLevel()], {
    execArgv: LOADER_ARGS,
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the built-in venue did not start within ${timeoutMs / 1000} s`));
    }, timeoutMs);
    const fail = (error: Error): void => {
      clearTimeout(timer);
      child.off('message', onMessage);
      reject(error);
    };
    const onMessage = (message: FromVenue): void => {
      if (message.type === 'ready') {
        clearTimeout(timer);
        child.off('message', onMessage);
        child.off('exit', onExit);
        resolve({ child, ready: message });
      } else if (message.type === 'failed') {
        fail(
          message.setting
            ? new SettingError(message.message)
            : new Error(`the built-in venue could not start: ${message.message}`),
        );
      }
    };
    const onExit = (code: number | null, signal: NodeJS.Signals | null): void =>
      fail(new Error(`the built-in venue ended before it served (exit ${code ?? signal})`));
    child.on('message', onMessage);
    child.once('exit', onExit);
  });
}

/** Asks the venue process to stop (it saves the venue first) and waits; one that hangs is killed after 30 s. */
async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  if (!sendTo(child, { type: 'stop' })) child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
  await exited;
  clearTimeout(timer);
}
