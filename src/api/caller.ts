import type { z } from 'zod';
import type { Logger } from '../util/log.ts';
import type { Availability } from './availability.ts';
import { codeInfo } from './codes.ts';
import { endpointName, fillRoute, type Endpoint } from './endpoints.ts';
import { NotOfferedError, ResponseShapeError, TransportError, type VenueError } from './errors.ts';
import { errorFromAnswer, type HttpAnswer } from './problem.ts';
import type { HttpTransport, QueryValue } from './http.ts';
import type { RateLimiter } from './rate-limit/limiter.ts';
import type { Reachability } from './reachability.ts';
import { backoffDelay, decideRecovery, type RandomSource, type RetryPolicy } from './recovery.ts';
import type { Clock } from '../util/clock.ts';

/** A parsed answer with the body as received: unknown fields and exact wire values travel along. */
export interface Fetched<T> {
  value: T;
  raw: unknown;
  requestId?: string;
}

export interface Call<Schema extends z.ZodType> {
  endpoint: Endpoint;
  params?: Readonly<Record<string, string>>;
  query?: Readonly<Record<string, QueryValue>>;
  body?: unknown;
  schema: Schema;
  /** Overrides for this call (pnl_not_ready may take longer than a dependency hiccup). */
  retry?: Partial<RetryPolicy>;
  signal?: AbortSignal;
}

/** Reads the resource a `check_status` recovery names; undefined when its kind is not one we can read. */
export type ResourceReader = (resource: Record<string, unknown> & { kind: string }) => Promise<unknown>;

export interface CallerDeps {
  transport: HttpTransport;
  limiter: RateLimiter;
  availability: Availability;
  clock: Clock;
  random: RandomSource;
  retry: RetryPolicy;
  logger: Logger;
  /** Shared by every reader of the venue: while it does not answer, one request at a time tries (reachability.ts). */
  reachability?: Reachability;
}

/**
 * One read against the venue, with every rule of the interface applied once for all endpoints:
 * remembered "not offered" answers, pacing, transport retries (reads are safe to repeat),
 * problem → typed error, §7.2 recovery, and schema parsing that names the failing field.
 */
export class VenueCaller {
  readonly #deps: CallerDeps;
  #readResource: ResourceReader | undefined;

  constructor(deps: CallerDeps) {
    this.#deps = deps;
  }

  set resourceReader(reader: ResourceReader) {
    this.#readResource = reader;
  }

  async call<Schema extends z.ZodType>(call: Call<Schema>): Promise<Fetched<z.output<Schema>>> {
    const { transport, limiter, availability, clock, random, logger } = this.#deps;
    const name = endpointName(call.endpoint);
    const memoryKey = `${transport.baseUrl} ${name}`;
    const path = fillRoute(call.endpoint.route, call.params);
    const policy = { ...this.#deps.retry, ...call.retry };
    const authenticated = transport.hasToken;
    for (let attempt = 1; ; attempt += 1) {
      const remembered = availability.recall(memoryKey, clock.now());
      if (remembered) throw remembered;
      const reachability = this.#deps.reachability;
      const probe = (await reachability?.admit(call.signal)) ?? false;
      let answer: HttpAnswer;
      try {
        const permit = await limiter.acquire({ path, readCost: call.endpoint.readCost, authenticated }, call.signal);
        try {
          answer = await transport.send({
            method: call.endpoint.method,
            path,
            query: call.query,
            body: call.body,
            authenticate: authenticated,
            signal: call.signal,
          });
        } catch (err) {
          limiter.settle(permit);
          throw err;
        }
        limiter.settle(permit, answer);
      } catch (err) {
        if (err instanceof TransportError)
          reachability?.failed(err.cause instanceof Error ? err.cause.message : err.message);
        else if (probe) reachability?.released();
        if (!(err instanceof TransportError) || attempt >= policy.maxAttempts) throw withAttempts(err, attempt);
        const delayMs = backoffDelay(attempt, policy, random);
        // With a shared reachability, its one warning says the venue is down; each retry is detail.
        const level = reachability ? 'debug' : 'warn';
        logger[level](
          { endpoint: name, attempt, delayMs: Math.round(delayMs), reason: err.message },
          'transport failure, retrying read',
        );
        await clock.sleep(delayMs, call.signal);
        continue;
      }
      reachability?.answered();
      if (answer.status >= 200 && answer.status < 300) return parseAnswer(call.schema, name, answer);
      const error = errorFromAnswer(answer, name);
      error.attempts = attempt;
      if (error instanceof NotOfferedError) {
        availability.remember(memoryKey, error, clock.now());
        logger.info({ endpoint: name, code: error.code, requestId: error.requestId }, 'not offered by this venue');
        throw error;
      }
      const decision = decideRecovery(error, attempt, policy, random);
      if (decision.action === 'retry') {
        // "Not computed yet" (pnl_not_ready) is the venue's ordinary state after a start, not news.
        const level = codeInfo(error.code)?.kind === 'not_ready' ? 'debug' : 'info';
        logger[level](
          {
            endpoint: name,
            code: error.code,
            strategy: decision.strategy,
            attempt,
            delayMs: Math.round(decision.delayMs),
          },
          'venue asked to retry',
        );
        await clock.sleep(decision.delayMs, call.signal);
        continue;
      }
      if (decision.action === 'check_status') error.checkedResource = await this.#check(decision.resource);
      // A 404 is an answer its caller handles (order_not_found becomes a data_quality row); a
      // built-in venue's restart gives many at once, which read as breakage at warn.
      logger[error.status === 404 ? 'info' : 'warn'](
        {
          endpoint: name,
          status: error.status,
          code: error.code,
          requestId: error.requestId,
          attempt,
          reason: decision.action === 'stop' ? decision.reason : 'check_status',
        },
        'venue error',
      );
      throw error;
    }
  }

  async #check(resource: Record<string, unknown> & { kind: string }): Promise<unknown> {
    if (!this.#readResource) return undefined;
    try {
      return await this.#readResource(resource);
    } catch (err) {
      return err as VenueError;
    }
  }
}

function parseAnswer<Schema extends z.ZodType>(
  schema: Schema,
  endpoint: string,
  answer: HttpAnswer,
): Fetched<z.output<Schema>> {
  const requestId = answer.headers['x-request-id'];
  let raw: unknown;
  try {
    raw = JSON.parse(answer.text);
  } catch {
    throw new ResponseShapeError(endpoint, ['body is not JSON'], answer.text, requestId);
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((issue) => `${fieldPath(issue.path)}: ${issue.message}`);
    throw new ResponseShapeError(endpoint, issues, raw, requestId);
  }
  return { value: parsed.data, raw, requestId };
}

/** `orders[3].price_micro`: the way a reader looks for a field in the payload. */
export function fieldPath(path: readonly PropertyKey[]): string {
  if (path.length === 0) return '(body)';
  return path.reduce<string>(
    (text, key) => (typeof key === 'number' ? `${text}[${key}]` : text === '' ? String(key) : `${text}.${String(key)}`),
    '',
  );
}

function withAttempts(err: unknown, attempts: number): unknown {
  if (err instanceof TransportError) err.attempts = attempts;
  return err;
}
