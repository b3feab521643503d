/**
 * The bus in-process (the default): partition logs with back-pressure, consumer groups and their commits.
 */
export { EmbeddedBus } from './embedded-bus.ts';
