import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KafkaBus } from '../../src/bus/kafka/kafka-bus.ts';
import { createTopicCatalogue } from '../../src/bus/topics.ts';
import { collect, tradeRecord } from '../bus-contract.ts';
import { startOwnKafka, type OwnKafka } from '../faults/pipelines.ts';
import { sleep } from '../faults/procs.ts';

/**
 * A loader pauses its subscription whenever the warehouse goes down, also while Kafka is away.
 * kafkajs, crashed by the outage, has no consumer group between the crash and its restart, and
 * refuses to pause then: that refusal once killed a loader in the fault suite's scale-out mode.
 * This broker is the test's own, stopped and started here (the shared one serves other suites).
 */
const work = mkdtempSync(join(tmpdir(), 'tapehouse-bus-outage-'));
let kafka: OwnKafka;

/** The subscription's log lines, kept to see kafkajs crash and restart. */
const lines: string[] = [];
const log = pino({ level: 'debug' }, { write: (line: string) => void lines.push(line) });

beforeAll(async () => {
  kafka = await startOwnKafka(work);
}, 180_000);

afterAll(async () => {
  await kafka?.stop();
  rmSync(work, { recursive: true, force: true });
});

/**
 * Waits for `done`; a timeout names what kafkajs said about its crashes, restarts and joins
 * meanwhile, and every line it logged at info or above since the wait began (a CI run once waited
 * the whole 240 s for the rejoin with no such line after the broker was back).
 */
async function until(what: string, done: () => boolean, ms = 90_000): Promise<void> {
  const from = lines.length;
  for (const deadline = Date.now() + ms; !done(); await sleep(100)) {
    if (Date.now() > deadline) {
      const said = lines
        .filter((line) => /Restarting the consumer|joined the group|crashed|Connection error|rebalanc/i.test(line))
        .slice(-12);
      const since = lines
        .slice(from)
        .filter((line) => !line.startsWith('{"level":20'))
        .slice(-30);
      throw new Error(
        `waited ${ms} ms for ${what}; the last of kafkajs's lines on it:\n${said.map((line) => line.slice(0, 300)).join('\n')}\n` +
          `its last lines at info or above since the wait began (${lines.length - from} lines in all):\n${since.map((line) => line.slice(0, 300)).join('\n')}`,
      );
    }
  }
}

describe('Kafka bus through a broker outage', () => {
  it('pauses and resumes without error while kafkajs restarts its crashed consumer, and stays paused across the rejoin', async () => {
    const catalogue = createTopicCatalogue('outage');
    const trades = catalogue.spec(catalogue.topicFor('trade'))!;
    const bus = await KafkaBus.open({ brokers: [kafka.brokers], topics: [trades], log });
    const collector = await collect(bus, 'outage-loaders', [trades.name]);
    await bus.publish(trades.name, [tradeRecord('0xa1', 'yes', 1)]);
    await collector.waitFor(1);
    // Committed: the consumer kafkajs restarts reads on from here, not from the topic's start.
    await collector.subscription.commit([
      { topic: trades.name, partition: collector.received[0]!.partition, next: 1n },
    ]);

    // The warehouse flaps while Kafka is away: pause and resume as a loader would, through
    // kafkajs's crashes and restarts, and end paused.
    await kafka.stop();
    const refusals: unknown[] = [];
    let flips = 0;
    const flap = setInterval(() => {
      try {
        if (flips++ % 2 === 0) collector.subscription.pause();
        else collector.subscription.resume();
      } catch (error) {
        refusals.push(error);
      }
    }, 5);
    // kafkajs's own log line, passed through the bus's logger.
    const crashed = () => lines.some((line) => line.includes('Restarting the consumer'));
    try {
      await until('kafkajs to crash and schedule a restart', crashed);
      await sleep(3_000);
    } finally {
      clearInterval(flap);
    }
    collector.subscription.pause();
    expect(refusals).toEqual([]);

    // Kafka back: the restarted consumer rejoins with a fresh (unpaused) group; the pause holds.
    const joins = () => lines.filter((line) => line.includes('"joined the group"')).length;
    const joinsBefore = joins();
    await kafka.start();
    await bus.publish(trades.name, [tradeRecord('0xa1', 'yes', 2)]);
    // The broker takes ~20 s to start; kafkajs's pending restart may be deep in its backoff (up to
    // 30 s a step), and the coordinator may wait out the crashed member's session and the
    // rebalance timeout (60 s) before the join completes: a CI run once took over 120 s.
    await until('the restarted consumer to rejoin', () => joins() > joinsBefore, 240_000);
    await sleep(5_000);
    expect(collector.received).toHaveLength(1);

    collector.subscription.resume();
    await collector.waitFor(2);
    expect(collector.received.map(({ offset }) => offset)).toEqual([0n, 1n]);
    await bus.close();
  }, 420_000);
});
