import type { Logger } from '../util/log.ts';
import { recordConflicts, type IdentityConflict } from '../warehouse/identity-conflicts.ts';
import type { Warehouse } from '../warehouse/warehouse.ts';

/**
 * The main job's watch for venue ids that name two different entities (identity-conflicts.ts):
 * every minute, and once more when the loaders have stored everything at the stop. Each check
 * looks at the ids of rows received since the job started (a restart whose venue reuses ids
 * collides with rows of earlier runs) against the rows that share them — for public trades, those
 * of the week before (a day partition each), so the minute's check does not read their history.
 */
export class IdentityCheck {
  readonly #since: number;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> = Promise.resolve();

  constructor(
    private readonly warehouse: Warehouse,
    private readonly log: Logger,
    private readonly everyMs = 60_000,
    startedAtMs = Date.now(),
  ) {
    this.#since = startedAtMs;
  }

  start(): void {
    this.#timer = setInterval(() => void this.check(), this.everyMs);
    this.#timer.unref();
  }

  /** The last check, after everything was stored. */
  async stop(): Promise<void> {
    clearInterval(this.#timer);
    await this.#running;
    await this.check();
  }

  check(): Promise<void> {
    this.#running = this.#running.then(async () => {
      try {
        const { found, recorded } = await recordConflicts(this.warehouse, { receivedSinceMs: this.#since });
        if (recorded > 0) {
          this.log.warn(
            {
              recorded,
              byEntity: countBy(found),
              example: found[0] && { entity: found[0].entity, key: found[0].key, differing: found[0].differing },
            },
            'venue ids name two different entities (the venue reused its ids?): every row is kept, each id recorded in data_quality as identity_conflict',
          );
        }
      } catch (err) {
        this.log.warn({ err }, 'identity check failed; trying again at the next one');
      }
    });
    return this.#running;
  }
}

function countBy(conflicts: readonly IdentityConflict[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const conflict of conflicts) out[conflict.entity] = (out[conflict.entity] ?? 0) + 1;
  return out;
}
