import type { Command } from 'commander';
import { registerNotBuilt } from './not-built.ts';
import { registerSimulate } from './simulate.ts';

/** Every subcommand registers itself here; one module per command under this folder. */
export const commands: Array<(program: Command) => void> = [registerNotBuilt, registerSimulate];
