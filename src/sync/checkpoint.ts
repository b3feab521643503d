import type { Json } from '../bus/record.ts';

/** How the last run of a job ended, or that one is under way. */
export type CheckpointStatus = 'running' | 'done' | 'failed' | 'unavailable';

/** A pass through a paged resource that has not reached its end yet: where to go on. */
export interface PassProgress {
  runId: string;
  /** The venue's cursor for the next page; absent before the first page. */
  cursor?: string;
  /** Pages already published in this pass (the next page's number, from 0). */
  page: number;
  /** Records published in this pass so far. */
  records: number;
  startedAt: string;
  /** Job-specific progress of the pass (newest item seen, oldest item still changing, …). */
  data?: Json;
}

/**
 * Where a job stands. Saved only after the bus confirmed the records it covers, so resuming from
 * it can repeat a page (the loaders deduplicate by natural key) but never skip one.
 */
export interface Checkpoint {
  /** Grows with every save; of two copies (the store, a Temporal heartbeat) the higher wins. */
  version: number;
  status: CheckpointStatus;
  /** Set while a pass is under way. */
  pass?: PassProgress;
  /** What the job keeps from one pass to the next (frontier, fingerprints, last bucket). */
  state?: Json;
  /** The endpoint is not offered here: not asked again before `retryAt`. */
  unavailable?: Unavailability;
  error?: string;
  updatedAt: string;
}

/** An endpoint the venue said it does not offer (404 route_not_found, 503 *_not_configured, 410). */
export interface Unavailability {
  code: string;
  /** First answer saying so. */
  since: string;
  /** Latest answer saying so. */
  checkedAt: string;
  /** Not asked again before this time. */
  retryAt: string;
}

/**
 * Durable job progress, one checkpoint per (job, scope); the scope is the account for account
 * jobs and empty for the catalogue. Implementations: in memory (tests), a JSON file (one worker),
 * the warehouse's sync_checkpoints table (the main job, and workers sharing a ClickHouse server).
 */
export interface CheckpointStore {
  load(job: string, scope: string): Promise<Checkpoint | undefined>;
  save(job: string, scope: string, checkpoint: Checkpoint): Promise<void>;
}

export class MemoryCheckpointStore implements CheckpointStore {
  readonly #checkpoints = new Map<string, string>();

  async load(job: string, scope: string): Promise<Checkpoint | undefined> {
    const text = this.#checkpoints.get(storeKey(job, scope));
    return text === undefined ? undefined : (JSON.parse(text) as Checkpoint);
  }

  async save(job: string, scope: string, checkpoint: Checkpoint): Promise<void> {
    // Stored as text, so a caller mutating its object afterwards cannot change what was saved.
    this.#checkpoints.set(storeKey(job, scope), JSON.stringify(checkpoint));
  }
}

export function storeKey(job: string, scope: string): string {
  return scope === '' ? job : `${job}/${scope}`;
}

/**
 * What a Temporal activity heartbeats: the version and where the pass stands, not the job's state
 * (the catalogue's fingerprints grow with the catalogue, and the server refuses heartbeat details
 * over 2 MB). The state stays in the store.
 */
export type CheckpointPosition = Pick<Checkpoint, 'version' | 'status' | 'pass' | 'updatedAt'>;

export function positionOf(checkpoint: Checkpoint): CheckpointPosition {
  const { version, status, pass, updatedAt } = checkpoint;
  return pass === undefined ? { version, status, updatedAt } : { version, status, pass, updatedAt };
}

/**
 * Where a run starts: the store's checkpoint, with the pass of a newer heartbeat (an attempt that
 * died after its last save reached the heartbeat but not this worker's store) — the job's state
 * always from the store.
 */
export function resumeFrom(
  stored: Checkpoint | undefined,
  beat: CheckpointPosition | undefined,
): Checkpoint | undefined {
  if (!beat || (stored && stored.version >= beat.version)) return stored;
  const resumed: Checkpoint = { ...stored, version: beat.version, status: beat.status, updatedAt: beat.updatedAt };
  if (beat.pass) resumed.pass = beat.pass;
  else delete resumed.pass;
  return resumed;
}
