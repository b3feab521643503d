/**
 * The typed client of the venue's interface. Everything that reads the venue goes through here.
 * See README.md in this folder for the choices made where the interface is silent.
 */
export { VenueClient, type VenueClientOptions } from './client.ts';
export type { Fetched } from './caller.ts';
export { fieldPath } from './caller.ts';
export { readAccessToken, fixedToken, TOKEN_ENV, type TokenSource, type TokenLookup } from './token.ts';
export { systemClock, ManualClock, type Clock } from '../util/clock.ts';
export { checkMicro, parseMicro, formatMicro, MicroError, INT64_MAX, INT64_MIN, type MicroRules } from './micro.ts';
export * from './errors.ts';
export { PROBLEM_CODES, codeInfo, type CodeInfo, type ErrorKind } from './codes.ts';
export { errorFromAnswer, type HttpAnswer } from './problem.ts';
export { parseRetryAfter } from '../util/retry-after.ts';
export {
  decideRecovery,
  effectiveStrategy,
  backoffDelay,
  retryAfterDelay,
  DEFAULT_RETRY_POLICY,
  type RetryPolicy,
  type RecoveryDecision,
} from './recovery.ts';
export { Availability, processAvailability, DEFAULT_REMEMBER_MS } from './availability.ts';
export { Reachability, PROBE_BACKOFF, type ReachabilityState } from './reachability.ts';
export { ENDPOINTS, endpointName, type Endpoint } from './endpoints.ts';
export { followCursor, itemsOf, CursorLoopError, type PagedItem } from './paging.ts';
export { PAGE_SIZE } from './params.ts';
export { ANSWER_CLASSES, venueAnswers, type AnswerClass } from './answers.ts';
export { cursorLoopsRefused } from './paging.ts';
export { HttpTransport, DEFAULT_TIMEOUTS, type Timeouts } from './http.ts';
export type { EventListQuery } from './resources/catalogue.ts';
export type { ListBody } from './resources/orders.ts';
export type { LpIncentivesQuery } from './resources/portfolio.ts';
export * from './rate-limit/index.ts';
export * from './schemas/index.ts';
