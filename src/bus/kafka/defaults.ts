/** The Kafka bus's defaults, in a module that imports nothing: `tapehouse load --help` shows them without loading kafkajs. */
export const DEFAULT_REBALANCE_TIMEOUT_MS = 60_000;
