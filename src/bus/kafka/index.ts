/**
 * The bus on Kafka (kafkajs): topics created from the catalogue, producers, consumer groups.
 */
export { DEFAULT_REBALANCE_TIMEOUT_MS, KafkaBus } from './kafka-bus.ts';
