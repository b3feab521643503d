/**
 * Every condition code the simulator answers with: its HTTP status, display title and recovery
 * strategy (§5.6, §7). Orders that fail after acceptance embed the same code, title and recovery
 * as their `failure` (§2.2), without status.
 */

export type RecoveryStrategy = 'none' | 'retry' | 'retry_after' | 'refresh_identity_token' | 'check_status';

interface CodeInfo {
  status: number;
  title: string;
  strategy: RecoveryStrategy;
}

const CODES = {
  malformed_json: { status: 400, title: 'Request body is not valid JSON', strategy: 'none' },
  invalid_path_parameter: { status: 400, title: 'Malformed value in the URL', strategy: 'none' },
  request_body_too_large: { status: 413, title: 'Request body too large', strategy: 'none' },
  unsupported_media_type: { status: 415, title: 'Content-Type must be application/json', strategy: 'none' },
  validation_failed: { status: 422, title: 'Validation failed', strategy: 'none' },
  order_value_below_minimum: { status: 422, title: 'Order value below the minimum', strategy: 'none' },
  order_value_above_maximum: { status: 422, title: 'Order value above the maximum', strategy: 'none' },
  order_size_below_minimum: { status: 422, title: 'Order size below the minimum', strategy: 'none' },
  order_size_above_maximum: { status: 422, title: 'Order size above the maximum', strategy: 'none' },
  order_price_out_of_range: { status: 422, title: 'Price must lie strictly between 0 and 1', strategy: 'none' },
  order_expiration_too_soon: { status: 422, title: 'Expiration is too soon', strategy: 'none' },
  recipient_token_account_missing: {
    status: 422,
    title: 'Recipient has no account for the destination token',
    strategy: 'none',
  },
  post_only_would_cross: { status: 422, title: 'Post-only order would take liquidity', strategy: 'none' },
  insufficient_balance: { status: 422, title: 'Insufficient collateral', strategy: 'none' },
  insufficient_shares: { status: 422, title: 'Insufficient shares', strategy: 'none' },
  order_not_fillable: { status: 422, title: 'Fill-or-kill order cannot be filled completely', strategy: 'none' },
  market_closed: { status: 422, title: 'Market is not accepting orders', strategy: 'none' },
  duplicate_order: { status: 409, title: 'Signed order already exists', strategy: 'none' },
  sequence_conflict: { status: 409, title: 'Sequence conflict', strategy: 'none' },
  batch_in_flight: { status: 409, title: 'Another batch is in flight', strategy: 'retry' },
  wallet_setup_incomplete: { status: 409, title: 'Wallet setup is incomplete', strategy: 'none' },
  rate_limited: { status: 429, title: 'Too many requests', strategy: 'retry_after' },
  dependency_unavailable: { status: 503, title: 'A dependency is unavailable', strategy: 'retry' },
  dependency_outcome_unknown: { status: 504, title: 'Outcome unknown', strategy: 'check_status' },
  dependency_invalid_response: { status: 502, title: 'A dependency answered invalidly', strategy: 'none' },
  account_operations_paused: { status: 503, title: 'Account operations are paused', strategy: 'retry_after' },
  internal_error: { status: 500, title: 'Internal error', strategy: 'none' },
  credentials_missing: { status: 401, title: 'Credentials missing', strategy: 'none' },
  wrong_credential_type: { status: 401, title: 'Wrong credential type', strategy: 'none' },
  invalid_personal_access_token: { status: 401, title: 'Personal access token rejected', strategy: 'none' },
  identity_token_expired: { status: 401, title: 'Identity token expired', strategy: 'refresh_identity_token' },
  invalid_identity_token: { status: 401, title: 'Identity token rejected', strategy: 'none' },
  forbidden_scope: { status: 403, title: 'Token lacks the required scope', strategy: 'none' },
  account_frozen: { status: 403, title: 'Account is frozen', strategy: 'none' },
  route_not_found: { status: 404, title: 'Route not found', strategy: 'none' },
  method_not_allowed: { status: 405, title: 'Method not allowed', strategy: 'none' },
  endpoint_retired: { status: 410, title: 'Endpoint retired', strategy: 'none' },
  feature_not_configured: { status: 503, title: 'Feature not configured', strategy: 'none' },
  price_service_not_configured: { status: 503, title: 'Price service not configured', strategy: 'none' },
  price_stream_not_configured: { status: 503, title: 'Price stream not configured', strategy: 'none' },
  pnl_not_ready: { status: 425, title: 'PnL not computed yet', strategy: 'retry_after' },
  price_temporarily_unavailable: { status: 503, title: 'Price temporarily unavailable', strategy: 'retry' },
  price_stream_capacity_exceeded: { status: 503, title: 'Price stream capacity exceeded', strategy: 'retry' },
  pnl_unavailable: { status: 503, title: 'PnL unavailable', strategy: 'none' },
  batch_not_found: { status: 404, title: 'Batch not found', strategy: 'none' },
  category_not_found: { status: 404, title: 'Category not found', strategy: 'none' },
  event_not_found: { status: 404, title: 'Event not found', strategy: 'none' },
  group_not_found: { status: 404, title: 'Group not found', strategy: 'none' },
  market_not_found: { status: 404, title: 'Market not found', strategy: 'none' },
  order_not_found: { status: 404, title: 'Order not found', strategy: 'none' },
  profile_not_found: { status: 404, title: 'Profile not found', strategy: 'none' },
  security_not_found: { status: 404, title: 'Security not found', strategy: 'none' },
  token_not_found: { status: 404, title: 'Token not found', strategy: 'none' },
  trading_day_not_found: { status: 404, title: 'Trading day not found', strategy: 'none' },
  venue_not_found: { status: 404, title: 'Venue not found', strategy: 'none' },
  price_feed_not_found: { status: 422, title: 'No price source for this identifier', strategy: 'none' },
} satisfies Record<string, CodeInfo>;

export type ProblemCode = keyof typeof CODES;

export function codeInfo(code: ProblemCode): CodeInfo {
  return CODES[code];
}

export interface FieldError {
  path: Array<string | number>;
  code: string;
  message: string;
}

export interface Recovery {
  strategy: RecoveryStrategy;
  after_seconds?: number;
  resource?: Record<string, string>;
}

/** A refusal the engine or a route decides on; the HTTP layer turns it into problem+json. */
export class Rejection extends Error {
  constructor(
    readonly code: ProblemCode,
    readonly detail?: string,
    readonly fieldErrors?: FieldError[],
    readonly recovery: Recovery = { strategy: codeInfo(code).strategy },
    readonly headers: Record<string, string> = {},
  ) {
    super(`${code}${detail ? `: ${detail}` : ''}`);
  }

  get status(): number {
    return codeInfo(this.code).status;
  }

  get title(): string {
    return codeInfo(this.code).title;
  }
}

export function validationFailed(
  fieldErrors: FieldError[],
  detail = 'Fix every listed field; do not resend unchanged.',
): Rejection {
  return new Rejection('validation_failed', detail, fieldErrors);
}
