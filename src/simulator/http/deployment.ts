/** A part of the interface a deployment may leave out: not routed (404) or routed but unconfigured (503). */
export type FeatureName = 'signed_orders' | 'account_batches' | 'withdrawals' | 'lp_incentives' | 'token_management';

/** How a feature shows when it is off: not routed at all (404) or routed but unconfigured (503). */
export type FeatureMode = 'on' | 'absent' | 'unconfigured';

export interface DeploymentConfig {
  features: Record<FeatureName, FeatureMode>;
  /** Rate limits; `scale` multiplies every documented figure (1 = as §8 says). */
  limits: { account: boolean; ipBurst: boolean; edge: boolean; scale: number };
  /** Probability that a positions read reports `unavailable_exchanges: ["SERVICE"]`. */
  positionsUnavailableRate: number;
  /** Default maximum request body (the interface leaves it open). */
  maxBodyBytes: number;
  /** How long the events listing keeps its sort values before re-reading them. */
  listingRefreshMs: number;
}

export const DEFAULT_DEPLOYMENT: DeploymentConfig = {
  features: {
    signed_orders: 'on',
    account_batches: 'on',
    withdrawals: 'on',
    lp_incentives: 'on',
    token_management: 'on',
  },
  limits: { account: true, ipBurst: true, edge: true, scale: 1 },
  positionsUnavailableRate: 0,
  maxBodyBytes: 64 * 1024,
  listingRefreshMs: 30_000,
};
