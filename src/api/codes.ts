import type { KnownRecoveryStrategy } from './schemas/failure.ts';

/**
 * The problem codes the interface names (§5.6, §7.3–7.5, §8), what kind of failure each is, and
 * what to do when a problem arrives without a usable `recovery`. `stop` marks codes whose meaning
 * says repeating cannot help: they are never retried, whatever `recovery` says.
 */
export type ErrorKind =
  | 'authentication'
  | 'permission'
  | 'invalid_request'
  | 'trading'
  | 'rate_limited'
  | 'service'
  | 'not_offered'
  | 'not_ready'
  | 'not_found';

export interface CodeInfo {
  kind: ErrorKind;
  /** Status the interface pairs with the code; undefined where it does not say. */
  status?: number;
  fallback: KnownRecoveryStrategy;
  stop?: true;
}

const notFound = (): CodeInfo => ({ kind: 'not_found', status: 404, fallback: 'none' });

export const PROBLEM_CODES: Readonly<Record<string, CodeInfo>> = {
  // §5.6 authentication
  credentials_missing: { kind: 'authentication', status: 401, fallback: 'none' },
  wrong_credential_type: { kind: 'authentication', status: 401, fallback: 'none' },
  invalid_personal_access_token: { kind: 'authentication', status: 401, fallback: 'none' },
  identity_token_expired: { kind: 'authentication', status: 401, fallback: 'refresh_identity_token' },
  invalid_identity_token: { kind: 'authentication', status: 401, fallback: 'none' },
  forbidden_scope: { kind: 'permission', status: 403, fallback: 'none' },
  account_frozen: { kind: 'permission', status: 403, fallback: 'none', stop: true },
  // §7.3 request errors
  malformed_json: { kind: 'invalid_request', status: 400, fallback: 'none' },
  invalid_path_parameter: { kind: 'invalid_request', status: 400, fallback: 'none' },
  request_body_too_large: { kind: 'invalid_request', status: 413, fallback: 'none' },
  unsupported_media_type: { kind: 'invalid_request', status: 415, fallback: 'none' },
  validation_failed: { kind: 'invalid_request', status: 422, fallback: 'none', stop: true },
  order_value_below_minimum: { kind: 'invalid_request', status: 422, fallback: 'none' },
  order_value_above_maximum: { kind: 'invalid_request', status: 422, fallback: 'none' },
  order_size_below_minimum: { kind: 'invalid_request', status: 422, fallback: 'none' },
  order_size_above_maximum: { kind: 'invalid_request', status: 422, fallback: 'none' },
  order_price_out_of_range: { kind: 'invalid_request', status: 422, fallback: 'none' },
  order_expiration_too_soon: { kind: 'invalid_request', status: 422, fallback: 'none' },
  recipient_token_account_missing: { kind: 'invalid_request', status: 422, fallback: 'none' },
  // §7.4 trading codes (statuses mostly not shown)
  post_only_would_cross: { kind: 'trading', status: 422, fallback: 'none' },
  insufficient_balance: { kind: 'trading', fallback: 'none' },
  insufficient_shares: { kind: 'trading', fallback: 'none' },
  order_not_fillable: { kind: 'trading', fallback: 'none' },
  market_closed: { kind: 'trading', fallback: 'none' },
  duplicate_order: { kind: 'trading', fallback: 'none' },
  sequence_conflict: { kind: 'trading', fallback: 'none' },
  batch_in_flight: { kind: 'trading', fallback: 'retry' },
  wallet_setup_incomplete: { kind: 'trading', fallback: 'none' },
  account_operations_paused: { kind: 'trading', fallback: 'retry' },
  rate_limited: { kind: 'rate_limited', status: 429, fallback: 'retry_after' },
  dependency_unavailable: { kind: 'service', status: 503, fallback: 'retry' },
  dependency_outcome_unknown: { kind: 'service', fallback: 'check_status' },
  dependency_invalid_response: { kind: 'service', status: 502, fallback: 'none' },
  internal_error: { kind: 'service', fallback: 'none', stop: true },
  // §7.5 availability and lookup
  route_not_found: { kind: 'not_offered', status: 404, fallback: 'none' },
  method_not_allowed: { kind: 'invalid_request', status: 405, fallback: 'none' },
  endpoint_retired: { kind: 'not_offered', status: 410, fallback: 'none', stop: true },
  feature_not_configured: { kind: 'not_offered', status: 503, fallback: 'none' },
  price_service_not_configured: { kind: 'not_offered', status: 503, fallback: 'none' },
  price_stream_not_configured: { kind: 'not_offered', status: 503, fallback: 'none' },
  pnl_not_ready: { kind: 'not_ready', status: 425, fallback: 'retry' },
  price_temporarily_unavailable: { kind: 'service', status: 503, fallback: 'retry' },
  price_stream_capacity_exceeded: { kind: 'service', status: 503, fallback: 'retry' },
  pnl_unavailable: { kind: 'service', status: 503, fallback: 'none', stop: true },
  batch_not_found: notFound(),
  category_not_found: notFound(),
  event_not_found: notFound(),
  group_not_found: notFound(),
  market_not_found: notFound(),
  order_not_found: notFound(),
  profile_not_found: notFound(),
  security_not_found: notFound(),
  token_not_found: notFound(),
  trading_day_not_found: notFound(),
  venue_not_found: notFound(),
  price_feed_not_found: { kind: 'not_found', status: 422, fallback: 'none', stop: true },
};

export function codeInfo(code: string | undefined): CodeInfo | undefined {
  return code !== undefined && Object.hasOwn(PROBLEM_CODES, code) ? PROBLEM_CODES[code] : undefined;
}
