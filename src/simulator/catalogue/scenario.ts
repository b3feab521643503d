import type { EventState, MarketState, ResolutionStatus } from './types.ts';

/** Where in its life an event is generated: drives its times, states and resolution. */
export type Scenario = 'draft' | 'upcoming' | 'live' | 'ended' | 'proposed' | 'disputed' | 'closed' | 'archived';

export interface ScenarioStates {
  eventState: EventState;
  marketState: MarketState;
  resolutionStatus: ResolutionStatus;
  isLive: boolean;
}

export function statesFor(scenario: Scenario): ScenarioStates {
  switch (scenario) {
    case 'draft':
      return { eventState: 'DRAFT', marketState: 'DRAFT', resolutionStatus: 'ACTIVE', isLive: false };
    case 'upcoming':
      return { eventState: 'ACTIVE', marketState: 'ACTIVE', resolutionStatus: 'ACTIVE', isLive: false };
    case 'live':
      return { eventState: 'LIVE', marketState: 'ACTIVE', resolutionStatus: 'ACTIVE', isLive: true };
    case 'ended':
      return { eventState: 'ENDED', marketState: 'CLOSED', resolutionStatus: 'ACTIVE', isLive: false };
    case 'proposed':
      return { eventState: 'PROPOSED', marketState: 'CLOSED', resolutionStatus: 'PROPOSED', isLive: false };
    case 'disputed':
      return { eventState: 'DISPUTED', marketState: 'CLOSED', resolutionStatus: 'DISPUTED', isLive: false };
    case 'closed':
    case 'archived':
      return { eventState: 'CLOSED', marketState: 'RESOLVED', resolutionStatus: 'RESOLVED', isLive: false };
  }
}

const HOUR = 3_600_000;

/** Start and end times relative to now for a scenario. */
export function timesFor(
  scenario: Scenario,
  nowMs: number,
  durationMs: number,
  offsetHours: number,
): { startMs: number; endMs: number } {
  switch (scenario) {
    case 'draft':
    case 'upcoming': {
      const startMs = nowMs + offsetHours * HOUR;
      return { startMs, endMs: startMs + durationMs };
    }
    case 'live': {
      const startMs = nowMs - Math.min(durationMs / 2, HOUR);
      return { startMs, endMs: startMs + durationMs };
    }
    default: {
      const endMs = nowMs - offsetHours * HOUR;
      return { startMs: endMs - durationMs, endMs };
    }
  }
}

/** Cycles through a fixed mix so every bucket is populated whatever the counts. */
export function scenarioMix(index: number, withLive: boolean): Scenario {
  const mix: Scenario[] = withLive
    ? [
        'live',
        'upcoming',
        'live',
        'upcoming',
        'ended',
        'closed',
        'upcoming',
        'proposed',
        'live',
        'disputed',
        'draft',
        'closed',
        'archived',
      ]
    : [
        'upcoming',
        'upcoming',
        'ended',
        'closed',
        'upcoming',
        'proposed',
        'disputed',
        'upcoming',
        'draft',
        'closed',
        'archived',
      ];
  return mix[index % mix.length] ?? 'upcoming';
}
