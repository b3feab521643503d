import { randomUUID } from 'node:crypto';
import type { BusRecord, Json } from '../bus/record.ts';
import type { Checkpoint, CheckpointStatus, PassProgress } from './checkpoint.ts';
import type { SyncDeps } from './deps.ts';
import { publishAll } from './publisher.ts';
import type { SyncOrigin } from './records.ts';

/** Called with every checkpoint saved (the Temporal activity heartbeats it). */
export type ProgressListener = (checkpoint: Checkpoint) => void;

export interface JobRunOptions {
  job: string;
  scope: string;
  /** The checkpoint to start from (undefined: the job's first run). */
  start: Checkpoint | undefined;
  onProgress?: ProgressListener;
  signal?: AbortSignal;
  /** Stop after this many pages with the pass unfinished (a Temporal activity runs a job in slices). */
  maxPages?: number;
  /** …or once this long has passed since the invocation started (ms): a slice stays within its activity's timeout. */
  maxMs?: number;
  /**
   * Publish every record read, even those this process remembers publishing (a backfill: it is
   * run to repair a hole the warehouse has, and the loaders' natural-key dedup makes it safe).
   */
  republish?: boolean;
}

/** Thrown by `commit` when the invocation used up its pages mid-pass; the checkpoint is saved. */
export class SliceComplete extends Error {
  constructor(readonly pages: number) {
    super(`slice of ${pages} pages complete; the pass goes on from the checkpoint`);
    this.name = 'SliceComplete';
  }
}

/**
 * One invocation of a job: the checkpoint it started from, and `commit`, the only way progress
 * moves — records first, on the bus and confirmed, then the checkpoint that covers them.
 */
export class JobRun {
  #checkpoint: Checkpoint;
  #published = 0;
  #pages = 0;

  readonly job: string;
  readonly scope: string;
  readonly signal: AbortSignal | undefined;
  readonly #onProgress: ProgressListener | undefined;
  readonly #maxPages: number | undefined;
  readonly #endsAtMs: number | undefined;
  readonly republish: boolean;

  constructor(
    readonly deps: SyncDeps,
    options: JobRunOptions,
  ) {
    this.job = options.job;
    this.scope = options.scope;
    this.signal = options.signal;
    this.#onProgress = options.onProgress;
    this.#maxPages = options.maxPages;
    this.#endsAtMs = options.maxMs === undefined ? undefined : deps.now() + options.maxMs;
    this.republish = options.republish ?? false;
    this.#checkpoint = options.start ?? {
      version: 0,
      status: 'running',
      updatedAt: new Date(deps.now()).toISOString(),
    };
  }

  get checkpoint(): Checkpoint {
    return this.#checkpoint;
  }

  /** Records published and pages committed by this invocation. */
  get totals(): { records: number; pages: number } {
    return { records: this.#published, pages: this.#pages };
  }

  /** The pass under way (resumed from the checkpoint), or a new one. */
  passOrNew(data?: Json): PassProgress {
    return this.#checkpoint.pass ?? this.newPass(data);
  }

  newPass(data?: Json): PassProgress {
    return {
      runId: randomUUID(),
      page: 0,
      records: 0,
      startedAt: new Date(this.deps.now()).toISOString(),
      ...(data === undefined ? {} : { data }),
    };
  }

  origin(pass: PassProgress | undefined): SyncOrigin {
    return { job: this.job, page: pass?.page ?? 0 };
  }

  /**
   * Publishes the records not published before (by natural key, in this process), waits until
   * the bus confirmed them, then saves the checkpoint: `pass` (where the next page starts; its
   * record count is brought up to date here) or undefined to end the pass; `state` replaces the
   * job's state when given.
   */
  async commit(records: readonly BusRecord[], next: { pass: PassProgress | undefined; state?: Json }): Promise<void> {
    this.signal?.throwIfAborted();
    const fresh = this.republish ? [...records] : this.deps.memory.unpublished(records);
    if (fresh.length > 0) await publishAll(this.deps.bus, this.deps.topics, fresh, this.signal);
    this.deps.memory.remember(fresh);
    this.#published += fresh.length;
    this.#pages += 1;
    const pass = next.pass && { ...next.pass, records: next.pass.records + fresh.length };
    await this.save('running', { pass, state: next.state === undefined ? this.#checkpoint.state : next.state });
    const outOfPages = this.#maxPages !== undefined && this.#pages >= this.#maxPages;
    const outOfTime = this.#endsAtMs !== undefined && this.deps.now() >= this.#endsAtMs;
    if (pass && (outOfPages || outOfTime)) throw new SliceComplete(this.#pages);
  }

  /** Saves how the invocation ended, keeping any pass under way so the next one resumes it. */
  async end(status: CheckpointStatus, extra: Partial<Pick<Checkpoint, 'unavailable' | 'error'>> = {}): Promise<void> {
    await this.save(status, { pass: this.#checkpoint.pass, state: this.#checkpoint.state, ...extra });
  }

  private async save(status: CheckpointStatus, fields: Partial<Checkpoint>): Promise<void> {
    const next: Checkpoint = {
      version: this.#checkpoint.version + 1,
      status,
      updatedAt: new Date(this.deps.now()).toISOString(),
    };
    if (fields.pass) next.pass = fields.pass;
    if (fields.state !== undefined) next.state = fields.state;
    if (fields.unavailable) next.unavailable = fields.unavailable;
    if (fields.error !== undefined) next.error = fields.error;
    await this.deps.checkpoints.save(this.job, this.scope, next);
    this.#checkpoint = next;
    this.#onProgress?.(next);
  }
}
