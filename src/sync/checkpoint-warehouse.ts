import type { Warehouse } from '../warehouse/warehouse.ts';
import type { Checkpoint, CheckpointStore } from './checkpoint.ts';
import { nowMicros } from '../util/clock.ts';

const TABLE = 'tapehouse.sync_checkpoints';
const LATEST = 'tapehouse.sync_checkpoints_latest';

/**
 * Checkpoints in the warehouse's `sync_checkpoints` table (sql/0001_bookkeeping.sql): one row per
 * save, read back through `sync_checkpoints_latest` (the newest row per job and scope). The table
 * has no column for a job's own state, so `cursor` holds the whole checkpoint as JSON (the venue's
 * cursor inside it); `run_id`, `status`, `pages`, `records` and `error` are filled for people
 * reading the table.
 */
export class WarehouseCheckpointStore implements CheckpointStore {
  // `updated_at` orders the rows: strictly increasing within this process, to the microsecond.
  #lastMicros = 0n;

  constructor(private readonly warehouse: Pick<Warehouse, 'client' | 'insertRows'>) {}

  async load(job: string, scope: string): Promise<Checkpoint | undefined> {
    const result = await this.warehouse.client.query({
      query: `SELECT cursor FROM ${LATEST} WHERE job = {job:String} AND scope = {scope:String}`,
      query_params: { job, scope },
      format: 'JSONEachRow',
    });
    const [row] = await result.json<{ cursor: string }>();
    return row === undefined || row.cursor === '' ? undefined : (JSON.parse(row.cursor) as Checkpoint);
  }

  async save(job: string, scope: string, checkpoint: Checkpoint): Promise<void> {
    const now = nowMicros();
    this.#lastMicros = now > this.#lastMicros ? now : this.#lastMicros + 1n;
    await this.warehouse.insertRows(TABLE, [
      {
        job,
        scope,
        run_id: checkpoint.pass?.runId ?? '',
        status: checkpoint.status,
        cursor: JSON.stringify(checkpoint),
        pages: checkpoint.pass?.page ?? 0,
        records: checkpoint.pass?.records ?? 0,
        error: checkpoint.error ?? '',
        updated_at: this.#lastMicros,
      },
    ]);
  }
}
