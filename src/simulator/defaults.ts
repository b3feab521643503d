/**
 * The simulator's defaults, in a module that imports nothing: the settings table (and with it
 * every command's `--help`) reads them without loading the simulator.
 */
export const DEFAULT_SEED = 1;
export const DEFAULT_RATE = 20;
