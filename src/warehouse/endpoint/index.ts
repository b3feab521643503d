/**
 * The query endpoint: ClickHouse's HTTP interface over chDB, read-only — statements checked,
 * parameters bound, answers streamed in the formats clients ask for, Native and compressed blocks.
 */
export { ChdbReadSessions } from './chdb-read-sessions.ts';
export { serveEmbeddedEndpoint, type EmbeddedEndpoint } from './embedded-endpoint.ts';
export { DEFAULT_LIMITS, prepareReadOnlyQuery, type QueryLimits } from './read-only-query.ts';
export { statementFormat } from './sql-clauses.ts';
export { type QueryTimer } from './timed-executor.ts';
