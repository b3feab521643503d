/** The `X-RateLimit-*` headers of §8.2, when all four are present and readable. */
export interface RateLimitReport {
  /** read, place, place_batch, cancel or cancel_all: the bucket closest to empty. */
  bucket: string;
  limit: number;
  remaining: number;
  /** Seconds until the bucket is full. */
  resetSeconds: number;
  /** Smallest step the reset was written with (1 for "2", 0.001 for "0.480"): it bounds the rounding. */
  resetResolution: number;
}

const DECIMAL = /^\d+(\.\d+)?$/;

export function readRateLimitHeaders(headers: Readonly<Record<string, string>>): RateLimitReport | undefined {
  const bucket = headers['x-ratelimit-bucket']?.trim();
  const limit = headers['x-ratelimit-limit']?.trim();
  const remaining = headers['x-ratelimit-remaining']?.trim();
  const reset = headers['x-ratelimit-reset']?.trim();
  if (!bucket || !limit || !remaining || !reset) return undefined;
  if (!DECIMAL.test(limit) || !/^-?\d+(\.\d+)?$/.test(remaining) || !DECIMAL.test(reset)) return undefined;
  const decimals = reset.split('.')[1]?.length ?? 0;
  return {
    bucket,
    limit: Number(limit),
    remaining: Number(remaining),
    resetSeconds: Number(reset),
    resetResolution: 10 ** -decimals,
  };
}
