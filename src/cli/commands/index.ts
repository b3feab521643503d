import type { Command } from 'commander';
import { registerCapture } from './capture.ts';
import { registerLoad } from './load.ts';
import { registerBook } from './book.ts';
import { registerExport } from './export.ts';
import { registerMigrate } from './migrate.ts';
import { registerReconcile } from './reconcile.ts';
import { registerRederive } from './rederive.ts';
import { registerRun } from './run.ts';
import { registerSchedules } from './schedules.ts';
import { registerSimulate } from './simulate.ts';
import { registerSql } from './sql.ts';
import { registerStatus } from './status.ts';
import { registerWorker } from './worker.ts';

/** Every subcommand registers itself here; one module per command under this folder. */
export const commands: Array<(program: Command) => void> = [
  registerRun,
  registerStatus,
  registerBook,
  registerExport,
  registerSimulate,
  registerSql,
  registerMigrate,
  registerWorker,
  registerSchedules,
  registerReconcile,
  registerLoad,
  registerCapture,
  registerRederive,
];
