import { describe, expect, it } from 'vitest';
import {
  LANE_EVENTS,
  LANE_START,
  RANGE_RELATIONS,
  ROUND_EVENTS,
  ROUND_STATES,
  STANDINGS,
  ProtocolError,
  acceptsRows,
  afterMayBeRecorded,
  decideRecorded,
  mayPrepareNext,
  nextLaneState,
  nextRoundState,
  relate,
  standingOf,
  type LaneState,
  type RangeDecision,
  type RangeRelation,
  type RoundEvent,
  type RoundState,
  type Standing,
} from '../src/load/protocol/index.ts';

// The exactly-once protocol's tables, written out: every state × every event, every standing ×
// every relation. An event a state does not list is one it cannot take (a driver bug:
// ProtocolError); `=` keeps the state and does nothing; otherwise the next state and the actions.
const ROUNDS: Record<RoundState, Partial<Record<RoundEvent, string>>> = {
  queued: {
    taken: 'recording_before record_before',
    rebalance_began: '=',
    assignment_known: '=',
  },
  recording_before: {
    before_recorded: 'inserting requeue_unrecorded send_inserts',
    before_recorded_in_rebalance: 'inserting_crossed requeue_unrecorded send_inserts',
    nothing_recorded: 'queued requeue_unrecorded',
    rebalance_began: '=',
    assignment_known: '=',
  },
  inserting: {
    rebalance_began: 'inserting_crossed',
    inserts_acknowledged: 'inserted count_stored',
    assignment_known: '=',
  },
  inserting_crossed: {
    rebalance_began: '=',
    inserts_acknowledged: 'settling wait_for_assignment',
    assignment_known: '=',
  },
  settling: {
    rebalance_began: '=',
    assignment_known: 'inserted_crossed add_missing_rows_of_kept count_stored',
  },
  inserted: {
    rebalance_began: '=',
    assignment_known: '=',
    after_recorded: 'after_recorded commit',
  },
  inserted_crossed: {
    rebalance_began: '=',
    assignment_known: '=',
    after_recorded: 'after_recorded commit',
  },
  after_recorded: {
    rebalance_began: '=',
    assignment_known: '=',
    commit_sent: 'committed',
  },
  committed: {
    rebalance_began: '=',
    assignment_known: '=',
  },
};

const RECORDED: Record<Standing, Record<RangeRelation, RangeDecision>> = {
  nothing_recorded: {
    previous: 'impossible',
    straddling: 'impossible',
    same: 'impossible',
    inside: 'impossible',
    overlapping: 'impossible',
    next: 'rebuild',
    gap: 'rebuild',
  },
  after_recorded: {
    previous: 'leave_out',
    straddling: 'leave_out',
    same: 'impossible',
    inside: 'impossible',
    overlapping: 'impossible',
    next: 'rebuild',
    gap: 'rebuild',
  },
  before_recorded: {
    previous: 'leave_out',
    straddling: 'leave_out',
    same: 'leave_out',
    inside: 'leave_out',
    overlapping: 'leave_out',
    next: 'rebuild',
    gap: 'rebuild',
  },
};

function step(state: RoundState, event: RoundEvent): string {
  try {
    const next = nextRoundState(state, event);
    if (next.state === state && next.actions.length === 0) return '=';
    return [next.state, ...next.actions].join(' ');
  } catch (error) {
    if (error instanceof ProtocolError) return '-';
    throw error;
  }
}

const range = (first: number, last: number) => ({ first: BigInt(first), last: BigInt(last) });

/** A table of `cell(row, column)`, every row × every column. */
function tableOf<R extends string, C extends string, V>(
  rows: readonly R[],
  columns: readonly C[],
  cell: (row: R, column: C) => V,
): Record<string, Record<string, V>> {
  return Object.fromEntries(rows.map((row) => [row, Object.fromEntries(columns.map((c) => [c, cell(row, c)]))]));
}

describe('the exactly-once protocol: a round', () => {
  it('follows the transition table in every state for every event', () => {
    const full = tableOf(ROUND_STATES, ROUND_EVENTS, (state, event) => ROUNDS[state][event] ?? '-');
    expect(tableOf(ROUND_STATES, ROUND_EVENTS, step)).toEqual(full);
  });

  it('goes queued → before recorded → inserted → after recorded → committed, committing only after `after`', () => {
    const events: RoundEvent[] = ['taken', 'before_recorded', 'inserts_acknowledged', 'after_recorded', 'commit_sent'];
    let state: RoundState = 'queued';
    const path: string[] = [];
    for (const event of events) {
      const next = nextRoundState(state, event);
      path.push(`${next.state}: ${next.actions.join(', ')}`);
      state = next.state;
    }
    expect(path).toEqual([
      'recording_before: record_before',
      'inserting: requeue_unrecorded, send_inserts',
      'inserted: count_stored',
      'after_recorded: commit',
      'committed: ',
    ]);
  });

  it('crossed by a rebalance: waits for the assignment and adds what its token left out before counting it stored', () => {
    let state: RoundState = 'inserting';
    for (const event of ['rebalance_began', 'inserts_acknowledged', 'assignment_known'] as const) {
      state = nextRoundState(state, event).state;
    }
    expect(state).toBe('inserted_crossed');
    expect(nextRoundState('settling', 'assignment_known').actions).toEqual([
      'add_missing_rows_of_kept',
      'count_stored',
    ]);
    // Its `after` waits out a rebalance; one inserted before the rebalance is whole and goes meanwhile.
    expect(afterMayBeRecorded('inserted_crossed', true)).toBe(false);
    expect(afterMayBeRecorded('inserted_crossed', false)).toBe(true);
    expect(afterMayBeRecorded('inserted', true)).toBe(true);
    for (const state of ROUND_STATES.filter((s) => s !== 'inserted' && s !== 'inserted_crossed')) {
      expect(afterMayBeRecorded(state, false), state).toBe(false);
    }
  });

  it('names the state and the event when the driver asks for a transition the protocol has not', () => {
    expect(() => nextRoundState('inserted', 'commit_sent')).toThrow(
      'a round inserted cannot take the event commit sent',
    );
  });
});

describe('the exactly-once protocol: a recorded range against where its partition stands', () => {
  it('decides by the table for every standing and every relation', () => {
    expect(tableOf(STANDINGS, RANGE_RELATIONS, decideRecorded)).toEqual(RECORDED);
  });

  it('relates a range to the stored offset and the ranges kept to rebuild', () => {
    const partition = { stored: 99n, unfinished: [range(120, 139), range(140, 159)] };
    const cases: Array<[ReturnType<typeof range>, RangeRelation]> = [
      [range(80, 99), 'previous'],
      [range(90, 110), 'straddling'],
      [range(120, 139), 'same'],
      [range(125, 130), 'inside'],
      [range(130, 145), 'overlapping'],
      [range(110, 200), 'overlapping'],
      [range(100, 119), 'next'],
      [range(160, 170), 'gap'],
    ];
    expect(cases.map(([r]) => relate(r, partition))).toEqual(cases.map(([, relation]) => relation));
    expect(RANGE_RELATIONS.every((relation) => cases.some(([, r]) => r === relation))).toBe(true);
  });

  it('names the standing from what is stored and kept', () => {
    expect(standingOf({ stored: -1n, unfinished: [] })).toBe('nothing_recorded');
    expect(standingOf({ stored: 5n, unfinished: [] })).toBe('after_recorded');
    expect(standingOf({ stored: -1n, unfinished: [range(0, 9)] })).toBe('before_recorded');
  });

  it('every relation a standing cannot produce is marked impossible, and relate never produces it', () => {
    const standings: Record<Standing, { stored: bigint; unfinished: ReturnType<typeof range>[] }> = {
      nothing_recorded: { stored: -1n, unfinished: [] },
      after_recorded: { stored: 99n, unfinished: [] },
      before_recorded: { stored: 99n, unfinished: [range(120, 139)] },
    };
    for (const [standing, partition] of Object.entries(standings) as Array<[Standing, (typeof standings)[Standing]]>) {
      for (let first = 0; first < 200; first += 7) {
        for (const length of [0, 5, 30]) {
          const relation = relate(range(first, first + length), partition);
          expect(decideRecorded(standing, relation), `${standing} ${relation}`).not.toBe('impossible');
        }
      }
    }
  });
});

describe('the exactly-once protocol: a lane', () => {
  const states: LaneState[] = [
    LANE_START,
    { ...LANE_START, assignment: 'rebalancing' },
    { ...LANE_START, stop: 'letting_rows_in' },
    { ...LANE_START, stop: 'closing', assignment: 'rebalancing' },
    { ...LANE_START, warehouse: 'failing', work: 'busy', rebuilt: 'waiting_for_round' },
  ];

  it('follows its table for every event', () => {
    const row = (state: LaneState) =>
      Object.fromEntries(
        LANE_EVENTS.map((event) => {
          const next = nextLaneState(state, event);
          const changed = (Object.keys(next.state) as Array<keyof LaneState>)
            .filter((key) => next.state[key] !== state[key])
            .map((key) => `${key}=${next.state[key]}`);
          return [event, [...changed, ...next.actions.map((a) => `!${a}`)].join(' ')];
        }),
      );
    expect(row(LANE_START)).toEqual({
      rebalance_began: 'assignment=rebalancing !cross_recorded_rounds',
      assignment_known: '!wake_assignment_waiters !wake_rounds',
      rows_let_in: 'stop=letting_rows_in !wake_room_waiters',
      close: 'stop=closing !wake_rounds !wake_room_waiters !wake_assignment_waiters',
      warehouse_failed: 'warehouse=failing !report_warehouse_down',
      warehouse_answered: '!report_warehouse_up',
      work_began: 'work=busy',
      work_ended: '',
      round_waits_for_ranges: 'rebuilt=waiting_for_round !wake_room_waiters',
      rounds_flow: '',
    });
    expect(row(states[4]!)).toEqual({
      rebalance_began: 'assignment=rebalancing !cross_recorded_rounds',
      assignment_known: '!wake_assignment_waiters !wake_rounds',
      rows_let_in: 'stop=letting_rows_in !wake_room_waiters',
      close: 'stop=closing !wake_rounds !wake_room_waiters !wake_assignment_waiters',
      // Told once per outage.
      warehouse_failed: '',
      warehouse_answered: 'warehouse=answering !report_warehouse_up',
      work_began: '',
      work_ended: 'work=idle',
      round_waits_for_ranges: '',
      rounds_flow: 'rebuilt=flowing',
    });
    // A stop is never undone by letting rows in.
    expect(nextLaneState(states[3]!, 'rows_let_in').state.stop).toBe('closing');
  });

  it('takes rows while the queue has room, when stopping, and while a rebuilt round waits for its other ranges', () => {
    expect(states.map((state) => acceptsRows(state, 10, 10))).toEqual([false, false, true, true, true]);
    expect(states.map((state) => acceptsRows(state, 9, 10))).toEqual([true, true, true, true, true]);
  });

  it('forms the next round ahead only with the assignment known and not closing', () => {
    expect(states.map(mayPrepareNext)).toEqual([true, false, true, false, true]);
  });
});
