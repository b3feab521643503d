import { randomUUID } from 'node:crypto';
import type { Admin, Kafka } from 'kafkajs';

/**
 * A first-claim-wins register on Kafka: one topic of one partition, never cleaned, where a record
 * keyed by a name claims it. Whoever reads the topic finds, for each key, the first record: that
 * claim holds for ever, later ones lost a race and are ignored. Consumer groups are cluster-wide,
 * so the register is too (one topic for every prefix).
 *
 * Why a log and not the group's committed-offset metadata: kafkajs's consumer commits carry no
 * metadata (only the admin's setOffsets does, and only on a group with no members), a commit
 * overwrites rather than compares, and an empty group's offsets expire
 * (`offsets.retention.minutes`, 7 days), taking the binding with them. Why not compacted:
 * compaction keeps a key's *latest* record, which would let a claim that lost a race replace the
 * winner once the cleaner ran; with `retention.ms = -1` and `cleanup.policy = delete` the first
 * record stays first. The topic grows by one small record per group (and per lost race).
 */
export const CLAIMS_TOPIC = '__tapehouse_claims';

export interface Claim {
  key: string;
  value: string;
  /** The claim's position in the register. */
  offset: bigint;
}

/** The first claim of `key`, or undefined. */
export async function readClaim(kafka: Kafka, admin: Admin, key: string): Promise<Claim | undefined> {
  await ensureClaimsTopic(admin);
  return (await readClaims(kafka, admin)).get(key);
}

/**
 * Claims `key` with `value` unless it is claimed already; answers the claim that holds (ours, or
 * the first one made, which may have won a race against ours).
 */
export async function claim(kafka: Kafka, admin: Admin, key: string, value: string): Promise<Claim> {
  await ensureClaimsTopic(admin);
  const found = (await readClaims(kafka, admin)).get(key);
  if (found) return found;
  const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
  await producer.connect();
  try {
    await producer.send({ topic: CLAIMS_TOPIC, acks: -1, messages: [{ key, value }] });
  } finally {
    await producer.disconnect();
  }
  const held = (await readClaims(kafka, admin)).get(key);
  if (!held) throw new Error(`the claim of ${key} on ${CLAIMS_TOPIC} was written but cannot be read back`);
  return held;
}

async function ensureClaimsTopic(admin: Admin): Promise<void> {
  const existing = await admin.listTopics();
  if (existing.includes(CLAIMS_TOPIC)) return;
  await admin.createTopics({
    waitForLeaders: true,
    topics: [
      {
        topic: CLAIMS_TOPIC,
        numPartitions: 1,
        configEntries: [
          { name: 'cleanup.policy', value: 'delete' },
          { name: 'retention.ms', value: '-1' },
          { name: 'retention.bytes', value: '-1' },
        ],
      },
    ],
  });
}

/** Every key's first claim, read from the start up to the end as it stands now. */
async function readClaims(kafka: Kafka, admin: Admin): Promise<Map<string, Claim>> {
  const [end] = await admin.fetchTopicOffsets(CLAIMS_TOPIC);
  const high = BigInt(end?.high ?? '0');
  const claims = new Map<string, Claim>();
  if (high === BigInt(end?.low ?? '0')) return claims;
  // kafkajs reads only through a consumer group: a throwaway one, deleted after.
  const groupId = `__tapehouse_claims_reader_${randomUUID()}`;
  const consumer = kafka.consumer({ groupId, allowAutoTopicCreation: false });
  await consumer.connect();
  try {
    await consumer.subscribe({ topics: [CLAIMS_TOPIC], fromBeginning: true });
    await new Promise<void>((resolve, reject) => {
      consumer
        .run({
          autoCommit: false,
          eachMessage: async ({ message }) => {
            const offset = BigInt(message.offset);
            const key = message.key?.toString('utf8');
            if (key !== undefined && !claims.has(key))
              claims.set(key, { key, value: message.value?.toString('utf8') ?? '', offset });
            if (offset + 1n >= high) resolve();
          },
        })
        .catch(reject);
    });
  } finally {
    await consumer.disconnect();
    await admin.deleteGroups([groupId]).catch(() => undefined);
  }
  return claims;
}
