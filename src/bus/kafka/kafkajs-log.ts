import { logLevel, type logCreator } from 'kafkajs';
import type { Logger } from '../../util/log.ts';

/**
 * Sends kafkajs's own log lines to our logger (JSON on stderr). kafkajs logs every error response
 * it then retries (a leader moving, a topic that already exists) as ERROR: those are warnings at
 * most, and the per-request `Connection` lines are debug detail. What really fails reaches us as
 * a rejected call or a consumer crash, and is logged there.
 */
export function kafkaLogCreator(log: Logger): logCreator {
  return () =>
    ({ namespace, level, log: entry }) => {
      const { message, timestamp: _timestamp, ...details } = entry;
      const fields = { kafkajs: namespace, ...details };
      if (namespace === 'Connection' || level >= logLevel.DEBUG) log.debug(fields, message);
      else if (level === logLevel.INFO) log.info(fields, message);
      else log.warn(fields, message);
    };
}
