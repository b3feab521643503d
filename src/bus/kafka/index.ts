/**
 * The bus on Kafka (kafkajs): topics created from the catalogue, producers, consumer groups, and
 * the cluster's first-claim-wins register (a loader group's warehouse).
 */
export { KafkaBus } from './kafka-bus.ts';
export { DEFAULT_REBALANCE_TIMEOUT_MS } from './defaults.ts';
export { CLAIMS_TOPIC, type Claim } from './claims.ts';
