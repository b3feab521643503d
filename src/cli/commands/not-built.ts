import type { Command } from 'commander';

/**
 * Commands named by the design whose parts are not built yet. They answer with a clear message
 * and exit code 3 instead of a stack trace; each one moves to its own module when it exists.
 */
const PENDING: Array<[name: string, summary: string]> = [
  ['run', 'the main job: capture + sync + load into ClickHouse (embedded default: simulator, chDB under ./data)'],
];

export function registerNotBuilt(program: Command): void {
  for (const [name, summary] of PENDING) {
    program
      .command(name)
      .description(`${summary} (not built yet)`)
      .allowUnknownOption(true)
      .allowExcessArguments(true)
      .action(() => {
        process.stderr.write(`tapehouse ${name}: not built yet. See README.md for what works today.\n`);
        process.exitCode = 3;
      });
  }
}
