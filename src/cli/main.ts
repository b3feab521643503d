import { readFileSync } from 'node:fs';
import { Command, CommanderError } from 'commander';
import { commands } from './commands/index.ts';
import { keepRunningWhenOutputCloses } from '../util/closed-output.ts';
import { setLogFormat, setLogLevel } from '../util/log.ts';
import { packagePath } from '../util/package-root.ts';
import { applyHeapPolicy } from './heap-policy.ts';
import { addSettings, resolveSettings, SettingError } from './settings.ts';

/** Settings of every command: the environment-only log level and format. */
const PROCESS_SETTINGS = ['logLevel', 'logFormat'] as const;

/** Exit codes scripts can rely on. */
export const EXIT = { ok: 0, failure: 1, usage: 2 } as const;

export function buildProgram(): Command {
  const program = new Command('tapehouse')
    .description(
      'Capture a prediction-market venue into ClickHouse: market streams, account history, PnL reconciliation.',
    )
    .version(packageVersion(), '-V, --version', 'print the version of tapehouse')
    .showHelpAfterError()
    .exitOverride();
  addSettings(program, PROCESS_SETTINGS);
  for (const register of commands) register(program);
  return program;
}

/** The version in package.json (the one npm installed). */
export function packageVersion(): string {
  const file = packagePath('package.json');
  return (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version;
}

export async function main(argv: string[]): Promise<number> {
  applyHeapPolicy();
  keepRunningWhenOutputCloses();
  const program = buildProgram();
  try {
    const { logLevel, logFormat } = resolveSettings(PROCESS_SETTINGS, {});
    setLogLevel(logLevel);
    setLogFormat(logFormat);
    await program.parseAsync(argv, { from: 'user' });
    return typeof process.exitCode === 'number' ? process.exitCode : EXIT.ok;
  } catch (err) {
    if (err instanceof CommanderError) {
      // --help and --version end here with exitCode 0; bad usage with a non-zero code.
      return err.exitCode === 0 ? EXIT.ok : EXIT.usage;
    }
    const message = err instanceof Error ? err.message : String(err);
    process.stderr.write(`tapehouse: ${message}\n`);
    return err instanceof SettingError ? EXIT.usage : EXIT.failure;
  }
}
