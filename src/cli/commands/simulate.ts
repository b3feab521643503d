import type { Command } from 'commander';
import { DEFAULT_RATE, DEFAULT_SEED, startSimulator } from '../../simulator/index.ts';

const DEFAULT_PORT = 8790;
/** Served from the command line, positions reads now and then report the exchange unavailable (§2.5). */
const POSITIONS_UNAVAILABLE_RATE = 0.02;

function integer(name: string, min: number): (value: string) => number {
  return (value) => {
    const n = Number(value);
    if (!Number.isSafeInteger(n) || n < min) throw new Error(`--${name} must be an integer ≥ ${min}`);
    return n;
  };
}

/** `tapehouse simulate`: serves the venue simulator on 127.0.0.1 until SIGINT or SIGTERM. */
export function registerSimulate(program: Command): void {
  program
    .command('simulate')
    .description('serve the venue simulator on 127.0.0.1')
    .option('--port <n>', `port to listen on (0 picks a free one)`, integer('port', 0), DEFAULT_PORT)
    .option('--seed <n>', 'seed of the catalogue and the order flow', integer('seed', 0), DEFAULT_SEED)
    .option('--token <t>', 'demo access token (every read scope); generated from the seed when absent')
    .option('--rate <n>', 'synthetic book changes per second', integer('rate', 0), DEFAULT_RATE)
    .action(async (opts: { port: number; seed: number; token?: string; rate: number }) => {
      const sim = await startSimulator({
        port: opts.port,
        seed: opts.seed,
        token: opts.token,
        rate: opts.rate,
        deployment: { positionsUnavailableRate: POSITIONS_UNAVAILABLE_RATE },
      });
      process.stdout.write(`simulator listening on ${sim.url}\n`);
      process.stdout.write(`demo token (orders:read portfolio:read): ${sim.demoToken}\n`);
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
