import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Helpers of the security tests: running the CLI as a user does, and looking for a secret in what it left. */

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const CLI = join(ROOT, 'bin/tapehouse.js');

export interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `node bin/tapehouse.js ARGS` to its end, with only the given variables on top of a clean environment. */
export function tapehouse(
  args: string[],
  env: Record<string, string> = {},
  options: RunOptions = {},
): Promise<Finished> {
  return runNode([CLI, ...args], env, options);
}

/** A TypeScript file of the tests (through tsx) to its end, with only the given variables. */
export function runFile(file: string, env: Record<string, string> = {}): Promise<Finished> {
  return runNode(['--import', 'tsx', file], env, {});
}

interface RunOptions {
  cwd?: string;
  timeoutMs?: number;
  /** Aborting sends SIGTERM, as a service manager stops a job. */
  stop?: AbortSignal;
  /** Called with all of stdout so far, on each new chunk. */
  onStdout?: (stdout: string) => void;
}

function runNode(args: string[], env: Record<string, string>, options: RunOptions): Promise<Finished> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, {
      cwd: options.cwd ?? ROOT,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    options.stop?.addEventListener('abort', () => child.kill('SIGTERM'), { once: true });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
      options.onStdout?.(stdout);
    });
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 60_000);
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** One place a secret was found: a file (relative path) or a named text. */
export interface Finding {
  where: string;
  at: number;
}

/**
 * Every occurrence of any of the secrets in the texts, and in every file under the folders, read
 * as bytes (text or not: a secret in a binary file leaked just the same). Also looks for the
 * secrets' base64 forms, as a Basic authorization header or a dumped buffer would carry them.
 */
export function findSecrets(
  secrets: readonly string[],
  texts: Readonly<Record<string, string>>,
  folders: readonly string[] = [],
): Finding[] {
  const needles = secrets.flatMap((secret) => [
    Buffer.from(secret, 'utf8'),
    Buffer.from(Buffer.from(secret, 'utf8').toString('base64'), 'utf8'),
  ]);
  const findings: Finding[] = [];
  const scan = (where: string, bytes: Buffer): void => {
    for (const needle of needles) {
      for (let at = bytes.indexOf(needle); at !== -1; at = bytes.indexOf(needle, at + 1)) findings.push({ where, at });
    }
  };
  for (const [name, text] of Object.entries(texts)) scan(name, Buffer.from(text, 'utf8'));
  for (const folder of folders) {
    for (const file of filesUnder(folder)) scan(file, readFileSync(file));
  }
  return findings;
}

export function filesUnder(folder: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) out.push(...filesUnder(path));
    else if (entry.isFile() && statSync(path).size > 0) out.push(path);
  }
  return out;
}

/** Polls until `probe` gives a value, or fails with `explain()` after `limitMs`. */
export async function waitFor<T>(
  probe: () => T | undefined | Promise<T | undefined>,
  explain: () => string,
  limitMs = 30_000,
): Promise<T> {
  const start = Date.now();
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() - start > limitMs) throw new Error(`timed out: ${explain()}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}
