import type { SimulatorOptions } from '../options.ts';

/** What the venue process is started with: the simulator's options that travel as JSON. */
export type VenueProcessOptions = Pick<
  SimulatorOptions,
  'port' | 'seed' | 'rate' | 'token' | 'lifecycle' | 'state' | 'cases' | 'streams' | 'deployment' | 'tickIntervalMs'
> & {
  venue?: { retention?: NonNullable<SimulatorOptions['venue']>['retention'] };
};

/** Messages over the IPC channel between the job and its venue process. */
export type ToVenue = { type: 'stop' } | { type: 'memory'; id: number };

export type FromVenue =
  | { type: 'ready'; url: string; demoToken: string; generation: number; resumed: boolean }
  /** It could not start; `setting`: the cause is a setting the user can change (an unreadable state file). */
  | { type: 'failed'; message: string; setting: boolean }
  | { type: 'memory'; id: number; usage: NodeJS.MemoryUsage };
