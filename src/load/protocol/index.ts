export {
  ROUND_STATES,
  ROUND_EVENTS,
  ProtocolError,
  nextRoundState,
  afterMayBeRecorded,
  type RoundState,
  type RoundEvent,
  type RoundAction,
  type RoundStep,
} from './round-states.ts';
export {
  LANE_START,
  LANE_EVENTS,
  nextLaneState,
  acceptsRows,
  mayPrepareNext,
  type LaneState,
  type LaneEvent,
  type LaneAction,
  type LaneStep,
} from './lane-states.ts';
export {
  STANDINGS,
  RANGE_RELATIONS,
  standingOf,
  relate,
  decideRecorded,
  type PartitionStanding,
  type Standing,
  type RangeRelation,
  type RangeDecision,
} from './range-relations.ts';
