import { spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';

/** A `tapehouse` (or any node script) child process whose first stdout line says it is ready. */
export interface Child {
  process: ChildProcess;
  /** The first stdout line, once printed. */
  ready: Promise<string>;
  /** Resolves with the exit code (null when killed by a signal). */
  exited: Promise<number | null>;
  /** Everything it wrote to stderr so far (for a failure message). */
  stderr(): string;
  /** Every stdout line so far. */
  lines(): string[];
}

const BIN = resolve(import.meta.dirname, '../../bin/tapehouse.js');

export function spawnTapehouse(args: readonly string[], env: NodeJS.ProcessEnv = {}): Child {
  return spawnNode([BIN, ...args], env);
}

export function spawnNode(args: readonly string[], env: NodeJS.ProcessEnv = {}): Child {
  const child = spawn(process.execPath, [...args], {
    env: { ...process.env, TAPEHOUSE_LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let err = '';
  let out = '';
  const lines: string[] = [];
  child.stderr!.on('data', (chunk: Buffer) => {
    err = (err + chunk.toString()).slice(-20_000);
  });
  const ready = new Promise<string>((resolveReady, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      let at: number;
      while ((at = out.indexOf('\n')) >= 0) {
        lines.push(out.slice(0, at));
        out = out.slice(at + 1);
        if (lines.length === 1) resolveReady(lines[0]!);
      }
    });
    child.once('exit', (code) => reject(new Error(`exited (${code}) before it was ready: ${err.slice(-2000)}`)));
  });
  ready.catch(() => undefined);
  const exited = new Promise<number | null>((resolveExit) => child.once('exit', (code) => resolveExit(code)));
  return { process: child, ready, exited, stderr: () => err, lines: () => lines };
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolveSleep) => setTimeout(resolveSleep, ms));
}
