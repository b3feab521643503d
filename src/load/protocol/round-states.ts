/**
 * Where a round stands in the exactly-once protocol, and what moves it on. A round is one range per
 * partition, inserted together under one deduplication token per table (inserting/round.ts); every
 * range of it goes through the same states. No I/O here: `nextRoundState` says what state follows
 * and which actions the flusher (inserting/flusher.ts) performs.
 *
 *   queued → recording_before → inserting → inserted → after_recorded → committed
 *
 * and the cases a rebalance makes: a round whose inserts are under way when it begins is
 * `inserting_crossed` (its partitions may change hands while they are), then `settling` once its
 * inserts are acknowledged: it waits for the new assignment and adds, for the partitions it kept,
 * what the new owners' share of its token left out; its `after` then waits out any rebalance
 * (`inserted_crossed`).
 */

export const ROUND_STATES = [
  /** Its batches wait in the lane's queue. */
  'queued',
  /** Taken from the queue: merged, encoded, its `before` rows on their way to the warehouse. */
  'recording_before',
  /** `before` is durable: the inserts are under way. */
  'inserting',
  /** …and a rebalance began before they were all acknowledged. */
  'inserting_crossed',
  /** Crossed and inserted: waiting for the new assignment, then for the rows its token left out. */
  'settling',
  /** Every table acknowledged: its `after` rows wait for the next offsets insert. */
  'inserted',
  /** Inserted after a rebalance crossed it: its `after` waits while a rebalance is under way. */
  'inserted_crossed',
  /** `after` is durable: the bus commit may go. */
  'after_recorded',
  /** The bus commit was sent (a refused one is sent again, bus-commits.ts). */
  'committed',
] as const;
export type RoundState = (typeof ROUND_STATES)[number];

export const ROUND_EVENTS = [
  /** The flusher took the round's batches from the queue. */
  'taken',
  /** Its `before` insert was acknowledged with no rebalance under way. */
  'before_recorded',
  /** Its `before` insert was acknowledged after a rebalance began (it was sent before). */
  'before_recorded_in_rebalance',
  /** None of its ranges was recorded: all lost to another loader, or held back by a rebalance. */
  'nothing_recorded',
  /** A rebalance began: the partitions may go to another loader. */
  'rebalance_began',
  /** Every insert of the round (data, then dead letters) was acknowledged. */
  'inserts_acknowledged',
  /** The new assignment is known — or the loader stops and will not wait for it. */
  'assignment_known',
  /** Its `after` rows were acknowledged. */
  'after_recorded',
  /** Its bus commit was sent. */
  'commit_sent',
] as const;
export type RoundEvent = (typeof ROUND_EVENTS)[number];

export type RoundAction =
  /** Merge and encode the round's inserts, and record its ranges `before`. */
  | 'record_before'
  /** Put the batches not recorded back at the head of the queue (or drop those of partitions lost). */
  | 'requeue_unrecorded'
  /** Send the round's inserts: data tables, counting tables, then dead letters. */
  | 'send_inserts'
  /** Wait until the new assignment is known (or the loader stops). */
  | 'wait_for_assignment'
  /** Drop the ranges of partitions lost; for those kept, add the rows the shared token left out. */
  | 'add_missing_rows_of_kept'
  /** Count the round's batches stored (figures, freshness) and free their room in the queue. */
  | 'count_stored'
  /** Send the bus commit of every range of the round (last offset + 1). */
  | 'commit';

export interface RoundStep {
  state: RoundState;
  actions: readonly RoundAction[];
}

/** An event the protocol does not allow in a state: a bug of the driver, never a warehouse answer. */
export class ProtocolError extends Error {
  constructor(state: RoundState, event: RoundEvent) {
    super(`a round ${state.replace(/_/g, ' ')} cannot take the event ${event.replace(/_/g, ' ')}`);
    this.name = 'ProtocolError';
  }
}

const stay = (state: RoundState): RoundStep => ({ state, actions: [] });
const to = (state: RoundState, ...actions: RoundAction[]): RoundStep => ({ state, actions });

/** The protocol's transition table: the state that follows `event` in `state`, and what to do. */
export function nextRoundState(state: RoundState, event: RoundEvent): RoundStep {
  switch (state) {
    case 'queued':
      if (event === 'taken') return to('recording_before', 'record_before');
      // A queued batch is recorded only in a round; a rebalance holds the next round back (lane-states.ts).
      if (event === 'rebalance_began' || event === 'assignment_known') return stay(state);
      break;
    case 'recording_before':
      if (event === 'before_recorded') return to('inserting', 'requeue_unrecorded', 'send_inserts');
      if (event === 'before_recorded_in_rebalance')
        return to('inserting_crossed', 'requeue_unrecorded', 'send_inserts');
      if (event === 'nothing_recorded') return to('queued', 'requeue_unrecorded');
      // Every attempt of the `before` insert leaves out all ranges once a rebalance began, so the
      // round learns of it from the answer (before_recorded_in_rebalance or nothing_recorded).
      if (event === 'rebalance_began' || event === 'assignment_known') return stay(state);
      break;
    case 'inserting':
      if (event === 'rebalance_began') return stay('inserting_crossed');
      if (event === 'inserts_acknowledged') return to('inserted', 'count_stored');
      if (event === 'assignment_known') return stay(state);
      break;
    case 'inserting_crossed':
      if (event === 'inserts_acknowledged') return to('settling', 'wait_for_assignment');
      if (event === 'rebalance_began' || event === 'assignment_known') return stay(state);
      break;
    case 'settling':
      if (event === 'assignment_known') return to('inserted_crossed', 'add_missing_rows_of_kept', 'count_stored');
      if (event === 'rebalance_began') return stay(state);
      break;
    case 'inserted':
      // Whole in the warehouse before the rebalance: its `after` may be written meanwhile.
      if (event === 'after_recorded') return to('after_recorded', 'commit');
      if (event === 'rebalance_began' || event === 'assignment_known') return stay(state);
      break;
    case 'inserted_crossed':
      if (event === 'after_recorded') return to('after_recorded', 'commit');
      if (event === 'rebalance_began' || event === 'assignment_known') return stay(state);
      break;
    case 'after_recorded':
      if (event === 'commit_sent') return stay('committed');
      if (event === 'rebalance_began' || event === 'assignment_known') return stay(state);
      break;
    case 'committed':
      if (event === 'rebalance_began' || event === 'assignment_known') return stay(state);
      break;
  }
  throw new ProtocolError(state, event);
}

/**
 * Whether a round's `after` rows may go in the next offsets insert: once every table is in, except
 * that a round a rebalance crossed waits until the new assignment is known.
 */
export function afterMayBeRecorded(state: RoundState, rebalancing: boolean): boolean {
  if (state === 'inserted') return true;
  if (state === 'inserted_crossed') return !rebalancing;
  return false;
}
