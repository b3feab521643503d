/**
 * The bus on Kafka (kafkajs): topics created from the catalogue, producers, consumer groups.
 */
export { KafkaBus } from './kafka-bus.ts';
export { DEFAULT_REBALANCE_TIMEOUT_MS } from './defaults.ts';
