/**
 * Where one lane's insert pipeline stands (inserting/flusher.ts), as named states: whether the
 * assignment is known or a rebalance is under way, whether the loader stops, whether the warehouse
 * answers, whether a round or an `after` insert is under way, and whether a rebuilt round waits for
 * its other ranges. `nextLaneState` is pure: the flusher performs the actions it returns.
 */

export interface LaneState {
  /** `rebalancing`: no new round (no `before` row), and the `after` of a round it crossed waits. */
  assignment: 'known' | 'rebalancing';
  /** `letting_rows_in`: deliveries waiting for room go on (a stop is about to store what they hold); `closing`: what is
   * queued is stored, then the lane ends. */
  stop: 'running' | 'letting_rows_in' | 'closing';
  warehouse: 'answering' | 'failing';
  /** `busy`: a round (or an `after` insert alone) is under way. */
  work: 'idle' | 'busy';
  /** `waiting_for_round`: a rebuilt round waits for ranges of it not rebuilt yet, so deliveries must go on whatever the
   * queue holds. */
  rebuilt: 'flowing' | 'waiting_for_round';
}

export const LANE_START: LaneState = {
  assignment: 'known',
  stop: 'running',
  warehouse: 'answering',
  work: 'idle',
  rebuilt: 'flowing',
};

export const LANE_EVENTS = [
  'rebalance_began',
  'assignment_known',
  'rows_let_in',
  'close',
  'warehouse_failed',
  'warehouse_answered',
  'work_began',
  'work_ended',
  'round_waits_for_ranges',
  'rounds_flow',
] as const;
export type LaneEvent = (typeof LANE_EVENTS)[number];

export type LaneAction =
  /** Tell every round recorded `before` and not yet inserted that a rebalance crossed it. */
  | 'cross_recorded_rounds'
  /** Wake the round loop (something it may take changed). */
  | 'wake_rounds'
  /** Wake whoever waits for the new assignment (a settling round, an idle loop). */
  | 'wake_assignment_waiters'
  /** Wake deliveries waiting for room in the queue. */
  | 'wake_room_waiters'
  /** Tell the loader the warehouse fails (it pauses the bus) / answers again (it resumes). */
  | 'report_warehouse_down'
  | 'report_warehouse_up';

export interface LaneStep {
  state: LaneState;
  actions: readonly LaneAction[];
}

/** The lane's transition table. */
export function nextLaneState(state: LaneState, event: LaneEvent): LaneStep {
  switch (event) {
    case 'rebalance_began':
      return { state: { ...state, assignment: 'rebalancing' }, actions: ['cross_recorded_rounds'] };
    case 'assignment_known':
      return { state: { ...state, assignment: 'known' }, actions: ['wake_assignment_waiters', 'wake_rounds'] };
    case 'rows_let_in':
      return {
        state: state.stop === 'closing' ? state : { ...state, stop: 'letting_rows_in' },
        actions: ['wake_room_waiters'],
      };
    case 'close':
      return {
        state: { ...state, stop: 'closing' },
        actions: ['wake_rounds', 'wake_room_waiters', 'wake_assignment_waiters'],
      };
    case 'warehouse_failed':
      // Told once per outage: the loader pauses the bus.
      return {
        state: { ...state, warehouse: 'failing' },
        actions: state.warehouse === 'answering' ? ['report_warehouse_down'] : [],
      };
    case 'warehouse_answered':
      // Told after every recovered call: the loader resumes the bus unless the other lane still fails.
      return { state: { ...state, warehouse: 'answering' }, actions: ['report_warehouse_up'] };
    case 'work_began':
      return { state: { ...state, work: 'busy' }, actions: [] };
    case 'work_ended':
      return { state: { ...state, work: 'idle' }, actions: [] };
    case 'round_waits_for_ranges':
      return state.rebuilt === 'waiting_for_round'
        ? { state, actions: [] }
        : { state: { ...state, rebuilt: 'waiting_for_round' }, actions: ['wake_room_waiters'] };
    case 'rounds_flow':
      return { state: { ...state, rebuilt: 'flowing' }, actions: [] };
  }
}

/** Whether a delivery may add rows to the lane's queue now. */
export function acceptsRows(state: LaneState, queuedRows: number, maxQueuedRows: number): boolean {
  return queuedRows < maxQueuedRows || state.stop !== 'running' || state.rebuilt === 'waiting_for_round';
}

/** Whether the next round may be formed and recorded `before` while the one before is in the engine. */
export function mayPrepareNext(state: LaneState): boolean {
  return state.assignment === 'known' && state.stop !== 'closing';
}
