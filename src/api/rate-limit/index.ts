export {
  RateLimiter,
  type RateLimiterOptions,
  type AdmissionRequest,
  type Permit,
  type LimiterAnswer,
} from './limiter.ts';
export { AccountReadBucket, READ_TIERS } from './account-bucket.ts';
export {
  IpLimits,
  IP_LIMITS,
  IP_SAFETY_SHARE,
  processIpLimits,
  pathFamily,
  type PathFamily,
  type IpLimitsConfig,
} from './ip-limits.ts';
export { TokenBucket, type BucketShape } from './token-bucket.ts';
export { SlidingWindow } from '../../util/sliding-window.ts';
export { readRateLimitHeaders, type RateLimitReport } from './headers.ts';
