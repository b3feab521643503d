/**
 * What a sync activity heartbeats for a large catalogue, against the Temporal server's limit on
 * heartbeat details (2 MB by default: larger ones are refused, and the activity fails).
 *
 * The catalogue job's state holds one fingerprint per listed event (UUID ids, as a real venue
 * has). Before: the whole checkpoint went into every heartbeat. Now: its version and pass only
 * (`positionOf`). Sizes are of the JSON the SDK's default converter sends.
 *
 *   npm run bench -- sync-heartbeat
 */
import { randomUUID } from 'node:crypto';
import { positionOf, type Checkpoint } from '../src/sync/checkpoint.ts';

const LIMIT = 2 * 1024 * 1024;

function catalogueCheckpoint(events: number): Checkpoint {
  const fingerprints: Record<string, string> = {};
  for (let i = 0; i < events; i++) fingerprints[randomUUID()] = `${randomUUID().replaceAll('-', '').slice(0, 16)}:41`;
  return {
    version: 123_456,
    status: 'running',
    updatedAt: new Date().toISOString(),
    // A venue cursor of a few hundred bytes, the largest we have seen is under that.
    pass: {
      runId: randomUUID(),
      cursor: 'c'.repeat(400),
      page: events / 100,
      records: events * 4,
      startedAt: new Date().toISOString(),
      data: {},
    },
    state: { pass: 41, fingerprints },
  };
}

const kib = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;
for (const events of [9_000, 36_000, 50_000, 200_000]) {
  const checkpoint = catalogueCheckpoint(events);
  const before = Buffer.byteLength(JSON.stringify(checkpoint));
  const after = Buffer.byteLength(JSON.stringify(positionOf(checkpoint)));
  process.stdout.write(
    `${String(events).padStart(7)} events: whole checkpoint ${kib(before).padStart(11)} (${(before / LIMIT).toFixed(2)} of the 2 MB limit), ` +
      `heartbeat now ${kib(after)} (${(after / LIMIT).toFixed(5)} of the limit; ${Math.round(before / after)}× smaller)\n`,
  );
}
