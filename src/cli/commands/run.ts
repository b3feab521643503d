import { relative } from 'node:path';
import type { Command } from 'commander';
import type { MainJob, Serving } from '../../run/main-job.ts';
import { createLogger } from '../../util/log.ts';
import { DEFAULT_DATA_DIR } from '../../warehouse/embedded/defaults.ts';
import { addSettings, refusePlainToken, resolveSettings, type SettingName } from '../settings.ts';
import { SERVER_SETTINGS, warehouseTarget } from '../warehouse-option.ts';

const RUN_SETTINGS = [
  'baseUrl',
  'tokenFile',
  'token',
  'account',
  // In server mode the data directory still holds the job's small state files: both may be given.
  'dataDir',
  ...SERVER_SETTINGS,
  'httpPort',
  'maxResultRows',
  'maxResultBytes',
  'duration',
  'seed',
  'rate',
  'status',
] as const satisfies readonly SettingName[];

/** `tapehouse run` (and `npm start`): the main job on the embedded default, until interrupted. */
export function registerRun(program: Command): void {
  const command = program
    .command('run')
    .description(
      'the main job: capture + sync + load into ClickHouse (default: the built-in simulator, chDB under ./data)',
    )
    .addHelpText(
      'after',
      `
Examples:
  tapehouse run                                   simulator in-process, chDB under ./data
  tapehouse run --duration 30s --data-dir /tmp/t  stop by itself after 30 s
  TAPEHOUSE_TOKEN=… tapehouse run --base-url https://venue.example
Ctrl-C flushes what was captured and stops; the next start records the stopped interval as a gap.`,
    );
  addSettings(command, RUN_SETTINGS);
  refusePlainToken(command).action(async (flags: Record<string, unknown>) => {
    process.exitCode = await run(flags);
  });
}

async function run(flags: Record<string, unknown>): Promise<number> {
  const { readAccessToken } = await import('../../api/token.ts');
  const { startMainJob } = await import('../../run/main-job.ts');
  const { StatusReporter } = await import('../../run/status-line.ts');
  const settings = resolveSettings(RUN_SETTINGS, flags);
  const log = createLogger('run');
  // Read even for the built-in simulator (which has its own demo token): a token file that was
  // asked for and cannot be read is a bad setting either way, not one silently ignored.
  const token =
    settings.baseUrl || settings.tokenFile !== undefined
      ? await readAccessToken({ tokenFile: settings.tokenFile, token: settings.token })
      : null;
  if (!settings.baseUrl && token)
    log.info('--token-file is read but not used: the built-in simulator has its own demo account');
  const target = warehouseTarget(settings);
  const reporter = new StatusReporter(process.stdout, settings.status ?? (process.stdout.isTTY ? 'line' : 'log'));
  // Listen before starting anything: a signal during start-up stops the job once it is up,
  // instead of killing the process halfway through opening the warehouse.
  const stopRequested = untilStopped(settings.duration);
  // A venue that does not answer keeps start-up waiting: a signal meanwhile ends the wait.
  const startUp = new AbortController();
  void stopRequested.then(() => startUp.abort());

  const job: MainJob = await startMainJob({
    baseUrl: settings.baseUrl,
    token,
    account: settings.account,
    dataDir: settings.dataDir ?? DEFAULT_DATA_DIR,
    server: target.kind === 'server' ? target : undefined,
    httpPort: settings.httpPort,
    resultBounds: { maxResultRows: settings.maxResultRows, maxResultBytes: settings.maxResultBytes },
    simulator: { seed: settings.seed, rate: settings.rate },
    onStatus: (line) => reporter.show(line, Date.now()),
    onServing: (serving) => printWelcome(serving, target.kind === 'chdb'),
    log,
    signal: startUp.signal,
  });

  const stopped = await stopRequested;
  reporter.end();
  // Where a person sees them: with stdout on a pipe (`| tee log`, `| head`, maybe closed by now)
  // and stderr on the terminal, the stop's lines go to the terminal.
  const say = process.stdout.isTTY || !process.stderr.isTTY ? process.stdout : process.stderr;
  say.write(`stopping (${stopped}): flushing what was captured…\n`);
  const report = await job.stop();
  if (!report.clean) {
    // Never "stopped cleanly" when something stayed undone: scripts see it in the exit code.
    const text = `stopped, but not cleanly: ${report.problems.join('; ')}\n`;
    say.write(text);
    if (say !== process.stderr && !process.stdout.isTTY) process.stderr.write(text);
    return 1;
  }
  say.write('stopped cleanly.\n');
  return 0;
}

function printWelcome(job: Serving, embedded: boolean): void {
  const dir = relative(process.cwd(), job.dataDir) || '.';
  const near = relative(process.cwd(), job.venueStateFile ?? '');
  const saved = near.startsWith('..') ? job.venueStateFile : near;
  const builtIn =
    job.simulator &&
    `(built-in simulator, ${job.simulator.resumed ? 'resumed from' : 'a new world saved in'} ${saved})`;
  const lines = [
    `tapehouse is running: venue ${job.venueUrl}${builtIn ? ` ${builtIn}` : ''}`,
    embedded ? `data: ${job.dataDir} (chDB)` : 'data: the ClickHouse server',
    `query it:   npx tapehouse sql --data-dir ${dir} "SELECT count() FROM trades"`,
    `endpoint:   ${job.httpUrl}  (ClickHouse HTTP interface, read-only; Grafana and @clickhouse/client can use it)`,
    `dashboards: ${job.httpUrl}/dashboards/`,
    `metrics:    ${job.httpUrl}/metrics`,
    'Ctrl-C to stop.',
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}

/**
 * Resolves on SIGINT, SIGTERM or SIGHUP, or after `durationMs`. A second SIGINT or SIGTERM exits at
 * once (the user insists); SIGHUP never does: a terminal closing during the flush must not cut it.
 */
function untilStopped(durationMs: number | undefined): Promise<string> {
  return new Promise((resolve) => {
    let stopping = false;
    const stop = (why: string) => {
      if (stopping) {
        if (why === 'SIGHUP') return;
        process.stderr.write('second signal: exiting without a clean stop\n');
        process.exit(130);
      }
      stopping = true;
      resolve(why);
    };
    process.on('SIGINT', () => stop('SIGINT'));
    process.on('SIGTERM', () => stop('SIGTERM'));
    // The terminal went away: stop as on Ctrl-C (its output has nowhere to go; the flush goes on).
    process.on('SIGHUP', () => stop('SIGHUP'));
    if (durationMs !== undefined) setTimeout(() => stop(`--duration reached`), durationMs).unref();
  });
}
