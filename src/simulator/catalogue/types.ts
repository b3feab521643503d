/** The simulator's own model of the catalogue (§2.8, §2.9). Rendering to wire shapes lives in http/render. */

export type EventType = 'GAME' | 'PROPOSITION' | 'RECURRING_PROPOSITION' | 'MULTI_OUTCOME';

/** Event `state`: DRAFT or the name of its lifecycle bucket (§2.8). */
export type EventState = 'DRAFT' | LifecycleBucket;
export type LifecycleBucket = 'LIVE' | 'ACTIVE' | 'ENDED' | 'PROPOSED' | 'DISPUTED' | 'CLOSED';
export const LIFECYCLE_ORDER: readonly LifecycleBucket[] = [
  'LIVE',
  'ACTIVE',
  'ENDED',
  'PROPOSED',
  'DISPUTED',
  'CLOSED',
];

/** Market `state`. ACTIVE trades; the others do not accept orders. */
export type MarketState = 'DRAFT' | 'PROVISIONED' | 'ACTIVE' | 'CLOSED' | 'RESOLVED';
export type ResolutionStatus = 'ACTIVE' | 'PROPOSED' | 'DISPUTED' | 'RESOLVED' | 'VOID';

export interface Category {
  /** Unique within the catalogue: the slugs of the path joined by '/'. */
  key: string;
  slug: string;
  label: string;
  parentKey: string | undefined;
  rootSlug: string;
  path: Array<{ slug: string; label: string }>;
  isLeaf: boolean;
}

export interface Team {
  name: string;
  abbreviation: string;
  color: string;
  record: string;
  providerId: string;
  sourceTeamId: string;
}

export interface GameInfo {
  sport: 'soccer' | 'tennis' | 'basketball';
  leagueSlug: string;
  teamA: Team;
  teamB: Team;
  lifecycle: 'scheduled' | 'in_progress' | 'final';
  liveLabel: string;
  scoreA: number;
  scoreB: number;
  /** Tennis only. */
  sets: Array<{ a: number; b: number; tiebreak?: { a: number; b: number } }>;
  hasThreeWay: boolean;
  spreadsLines: number[];
  totalsLines: number[];
  gameStateId: string;
}

export interface SimOutcome {
  id: string;
  index: 0 | 1;
  label: string;
  shortLabel: string;
  tokenId: string;
  kind: string | undefined;
  teamSide: string | undefined;
  side: 'left' | 'right';
  threshold: number | undefined;
  betSlipTitle: string;
  resolutionLabel: string;
  /** Set once the market resolves: 1_000_000 for the winner, 0 for the loser, 500_000 each on VOID. */
  resolutionPriceMicro: bigint | undefined;
}

export interface LpIncentiveConfig {
  poolMicro: bigint;
  maxSpreadMicro: number;
  minSharesMicro: bigint;
}

export interface RecurringCycle {
  cycleIndex: number;
  /** Asset ticker the cycle observes, e.g. BTC. */
  symbol: string;
  cadenceSeconds: number;
  referencePrice: number;
  observeAtMs: number;
  slug: string;
}

export interface SimMarket {
  id: string;
  slug: string;
  question: string;
  conditionId: string;
  negRiskId: string | undefined;
  eventId: string;
  state: MarketState;
  resolutionStatus: ResolutionStatus;
  haltedAtMs: number | undefined;
  haltedReason: string | undefined;
  resolvedAtMs: number | undefined;
  archivedAtMs: number | undefined;
  resolutionOutcome: string | undefined;
  sourceMarketType: string;
  line: string | undefined;
  displayLabel: string;
  /** Price grid: tick in micro-units and the engine's integer scales. */
  tickMicro: bigint;
  priceScale: number;
  sizeScale: number;
  minOrderSizeMicro: bigint;
  outcomes: [SimOutcome, SimOutcome];
  threeWayRole: 'home' | 'draw' | 'away' | undefined;
  gameNumber: number | undefined;
  lpIncentive: LpIncentiveConfig | undefined;
  /** Historical traded volume before the simulator started, plus what the engine adds. */
  volumeMicro: bigint;
  closeMs: number;
  openMs: number;
  /** Fair price of outcome 0 at generation (micro); the traders' starting point. */
  initialPriceMicro: bigint;
  recurring: RecurringCycle | undefined;
  description: string;
  resolutionSource: string;
  playerName: string | undefined;
  statType: string | undefined;
}

export interface SimEvent {
  id: string;
  slug: string;
  title: string;
  eventType: EventType;
  state: EventState;
  resolutionStatus: ResolutionStatus;
  isLive: boolean;
  startMs: number;
  endMs: number;
  /** Leaf category keys; the first is the primary category. */
  categoryKeys: string[];
  marketIds: string[];
  mainMarketId: string;
  negRiskId: string | undefined;
  /** Slugs of child events of the group; all resolve to this root. */
  childSlugs: string[];
  archivedAtMs: number | undefined;
  /** Generation order; the final tie-breaker of every listing sort. */
  ordinal: number;
  game: GameInfo | undefined;
  relatedEventIds: string[];
  tags: string[];
  description: string;
}
