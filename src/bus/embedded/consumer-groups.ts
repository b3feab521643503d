import { BusError, type CommitPosition, type PartitionLag } from '../bus.ts';
import type { PartitionLog } from './partition-log.ts';

interface Group {
  /** The subscription reading for the group now (the embedded bus has one member per group). */
  member: object | undefined;
  /** topic → per partition: where the group resumes (its last commit, or where it first started). */
  floors: Map<string, number[]>;
  /** topic → per partition: whether `floors` holds a commit. */
  committed: Map<string, boolean[]>;
}

/**
 * The consumer groups of the embedded bus and their commits. A group is remembered from its first
 * subscribe until the bus closes, like Kafka's committed offsets, so a closed subscriber's
 * successor resumes at the commit. Records are dropped once every group that reads the topic has
 * committed past them; a topic no group reads keeps everything up to its capacity, then
 * publishers wait.
 */
export class GroupRegistry {
  private readonly groups = new Map<string, Group>();

  constructor(private readonly logs: ReadonlyMap<string, readonly PartitionLog[]>) {}

  /**
   * Makes the subscriber `admit` builds, from the positions the group resumes at, the group's
   * reader of the topics.
   */
  join<Member extends object>(
    groupId: string,
    topics: readonly string[],
    admit: (starts: Map<string, number[]>) => Member,
  ): Member {
    const group = this.groups.get(groupId) ?? { member: undefined, floors: new Map(), committed: new Map() };
    if (group.member !== undefined) {
      throw new BusError('group_busy', `group ${groupId} already has a subscriber on the embedded bus (one per group)`);
    }
    this.groups.set(groupId, group);
    const starts = new Map<string, number[]>();
    for (const topic of topics) {
      if (!group.floors.has(topic)) {
        const logs = this.logsOf(topic);
        group.floors.set(
          topic,
          logs.map((log) => log.earliest),
        );
        group.committed.set(
          topic,
          logs.map(() => false),
        );
      }
      starts.set(topic, [...group.floors.get(topic)!]);
    }
    const member = admit(starts);
    group.member = member;
    return member;
  }

  leave(groupId: string, member: object): void {
    const group = this.groups.get(groupId);
    if (group?.member === member) group.member = undefined;
  }

  /** Applies all the positions or, when one is invalid, none of them. */
  commit(groupId: string, positions: readonly CommitPosition[]): void {
    const group = this.groups.get(groupId);
    const checked = positions.map(({ topic, partition, next }) => {
      const floors = group?.floors.get(topic);
      const log = this.logs.get(topic)?.[partition];
      if (group === undefined || floors === undefined || log === undefined) {
        throw new BusError('bad_commit', `group ${groupId} does not read ${topic}[${partition}]`);
      }
      const offset = Number(next);
      if (offset < floors[partition]! || offset > log.end) {
        throw new BusError(
          'bad_commit',
          `commit ${next} for ${topic}[${partition}] is outside ${floors[partition]}..${log.end} (positions only move forward)`,
        );
      }
      return { group, topic, partition, offset, log };
    });
    for (const { group, topic, partition, offset, log } of checked) {
      group.floors.get(topic)![partition] = offset;
      group.committed.get(topic)![partition] = true;
      log.trimBelow(this.lowestFloor(topic, partition));
    }
  }

  committedOffsets(groupId: string, topic: string): Map<number, bigint> {
    const group = this.groups.get(groupId);
    const offsets = new Map<number, bigint>();
    const floors = group?.floors.get(topic) ?? [];
    const committed = group?.committed.get(topic) ?? [];
    floors.forEach((floor, partition) => {
      if (committed[partition]) offsets.set(partition, BigInt(floor));
    });
    return offsets;
  }

  lag(groupId: string, topic: string): PartitionLag[] {
    const committed = this.committedOffsets(groupId, topic);
    return this.logsOf(topic).map((log, partition) => {
      const mark = committed.get(partition) ?? null;
      const end = BigInt(log.end);
      return { topic, partition, committed: mark, end, lag: end - (mark ?? BigInt(log.earliest)) };
    });
  }

  private lowestFloor(topic: string, partition: number): number {
    let lowest = Infinity;
    for (const group of this.groups.values()) {
      const floor = group.floors.get(topic)?.[partition];
      if (floor !== undefined && floor < lowest) lowest = floor;
    }
    return lowest;
  }

  private logsOf(topic: string): readonly PartitionLog[] {
    const logs = this.logs.get(topic);
    if (logs === undefined) throw new BusError('unknown_topic', `topic ${topic} is not in this bus's catalogue`);
    return logs;
  }
}
