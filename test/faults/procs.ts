import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The pipeline's processes as the fault suite runs them: real `tapehouse` commands as children,
 * each with its output kept (and appended to a log file), its peak RSS sampled, and the means to
 * SIGKILL and restart it with the same arguments.
 */

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const BIN = join(ROOT, 'bin/tapehouse.js');

export interface ProcOptions {
  name: string;
  args: string[];
  cwd: string;
  env?: Record<string, string>;
  /** Every line of output is appended here too. */
  logFile: string;
  /** A script run through tsx instead of the `tapehouse` command (the scale-out mode's loader host). */
  script?: string;
}

export class Proc {
  #child: ChildProcess | null = null;
  #exited: Promise<void> = Promise.resolve();
  #output = '';
  /** Peak resident set over every run of this process, KiB. */
  peakRssKiB = 0;
  starts = 0;
  /** Exits nobody asked for (a crash), with the tail of that run's output. */
  readonly crashes: string[] = [];
  /** Clean stops (SIGTERM) that ended with another exit code than 0, with the tail of that run's output. */
  readonly uncleanStops: string[] = [];
  #expectingExit = false;

  constructor(readonly options: ProcOptions) {}

  get name(): string {
    return this.options.name;
  }

  get running(): boolean {
    return this.#child !== null && this.#child.exitCode === null && this.#child.signalCode === null;
  }

  /** Output of the current run. */
  output(): string {
    return this.#output;
  }

  start(): this {
    const { args, cwd, env, logFile, name, script } = this.options;
    this.#output = '';
    this.starts += 1;
    this.#expectingExit = false;
    const entry = script === undefined ? [BIN] : ['--import', 'tsx', script];
    const child = spawn(process.execPath, [...entry, ...args], {
      cwd,
      env: { ...process.env, TAPEHOUSE_LOG_LEVEL: 'warn', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const run = this.starts;
    let partial = '';
    const keep = (chunk: Buffer) => {
      const text = chunk.toString('utf8');
      this.#output += text;
      // Whole lines only, each with the process and run it came from.
      const lines = (partial + text).split('\n');
      partial = lines.pop()!;
      if (lines.length > 0) appendFileSync(logFile, lines.map((line) => `[${name}#${run}] ${line}\n`).join(''));
    };
    child.stdout!.on('data', keep);
    child.stderr!.on('data', keep);
    this.#exited = new Promise((resolve) =>
      child.once('exit', (code, signal) => {
        if (!this.#expectingExit)
          this.crashes.push(`${name} exited (${code ?? signal}) unasked: ${this.#output.slice(-1500)}`);
        resolve();
      }),
    );
    this.#child = child;
    return this;
  }

  /** Reads the current RSS from /proc and keeps the peak. */
  sampleRss(): void {
    const pid = this.#child?.pid;
    if (!pid || !this.running) return;
    try {
      const status = readFileSync(`/proc/${pid}/status`, 'utf8');
      const kib = Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? /VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
      if (kib > this.peakRssKiB) this.peakRssKiB = kib;
    } catch {
      // exited between the check and the read
    }
  }

  async kill9(): Promise<void> {
    this.sampleRss();
    this.#expectingExit = true;
    this.#child?.kill('SIGKILL');
    await this.#exited;
  }

  /** SIGTERM and wait for a clean exit; SIGKILL after `graceMs`. Returns the exit code (null: killed). */
  async stop(graceMs = 90_000): Promise<number | null> {
    const child = this.#child;
    if (!child || !this.running) return child?.exitCode ?? null;
    this.sampleRss();
    this.#expectingExit = true;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    await this.#exited;
    clearTimeout(timer);
    if (child.exitCode !== 0)
      this.uncleanStops.push(
        `${this.name} stopped with exit ${child.exitCode ?? child.signalCode}: ${this.#output.slice(-1500)}`,
      );
    return child.exitCode;
  }

  /** Waits until the current run's output matches; fails early when the process exits. */
  async waitFor(pattern: RegExp, limitMs = 120_000): Promise<RegExpExecArray> {
    const started = Date.now();
    for (;;) {
      const match = pattern.exec(this.#output);
      if (match) return match;
      if (!this.running)
        throw new Error(`${this.name} exited before printing ${pattern}: ${this.#output.slice(-2000)}`);
      if (Date.now() - started > limitMs)
        throw new Error(`${this.name}: no ${pattern} within ${limitMs} ms: ${this.#output.slice(-2000)}`);
      await sleep(200);
    }
  }
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Samples every process's RSS once a second until stopped. */
export function sampleRssEvery(procs: () => readonly Proc[], everyMs = 1_000): () => void {
  const timer = setInterval(() => procs().forEach((p) => p.sampleRss()), everyMs);
  return () => clearInterval(timer);
}
