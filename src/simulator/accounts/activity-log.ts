import type { Prng } from '../prng.ts';
import type { Account, Activity, ActivityType } from './account.ts';

/** Appends activities with venue-wide increasing sequence numbers (the keyset of activity pages). */
export class ActivityLog {
  #seq = 0;

  constructor(
    private readonly ids: Prng,
    /** A resumed venue's last sequence number: numbering goes on from there. */
    lastSeq = 0,
  ) {
    this.#seq = lastSeq;
  }

  get lastSeq(): number {
    return this.#seq;
  }

  record(
    account: Account,
    type: ActivityType,
    atMs: number,
    refs: { orderId?: string; conditionId?: string; tokenId?: string; amountMicro?: bigint; batchHash?: string } = {},
  ): Activity {
    const activity: Activity = {
      id: this.ids.uuid(),
      seq: ++this.#seq,
      type,
      createdAtMs: atMs,
      orderId: refs.orderId,
      conditionId: refs.conditionId,
      tokenId: refs.tokenId,
      amountMicro: refs.amountMicro ?? 0n,
      ...(refs.batchHash === undefined ? {} : { batchHash: refs.batchHash }),
    };
    account.activities.push(activity);
    return activity;
  }
}
