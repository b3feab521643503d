import { createLogger } from '../../src/util/log.ts';
import { Secret } from '../../src/util/secret.ts';

/**
 * Logs a secret (from SECRET) in the shapes credentials take in objects a part might log: header
 * maps in any case and depth, client options, URLs with user:password@, a Secret. The security
 * test reads what reaches stderr.
 */
const value = process.env.SECRET ?? '';
const log = createLogger('log-child', 'trace');
const logged = {
  headers: { Authorization: `Bearer ${value}`, 'x-clickhouse-key': value },
  failure: { request: { headers: { authorization: `Basic ${Buffer.from(`reader:${value}`).toString('base64')}` } } },
  kafka: { brokers: ['127.0.0.1:9092'], sasl: { mechanism: 'plain', username: 'reader', password: value } },
  clickhouse: { url: `http://reader:${value}@127.0.0.1:8123`, password: new Secret(value) },
  reason: `refused: Bearer ${value} is not valid`,
  list: [{ token: value }],
  kept: 'ordinary text stays',
};
log.info(logged, 'credentials in every shape');
log.warn({ token: new Secret(value) }, 'a Secret');
// The logged object itself is left as it was: redaction works on a copy.
log.info(
  { unchanged: logged.headers.Authorization === `Bearer ${value}` && logged.kafka.sasl.password === value },
  'done',
);
