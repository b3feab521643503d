import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { SettingError } from './setting-error.ts';

/**
 * One process per state file. Capture's coverage marks and the worker's checkpoints are whole
 * files that each process rewrites from its own copy: two processes on one file (two capture
 * shards left on the default path, two workers) silently overwrite each other's marks. The first
 * to take `<file>.lock` (its pid, created exclusively) holds the file until it exits; a lock left
 * by a process that is gone (killed) is taken over.
 */
const held = new Set<string>();

export function lockStateFile(path: string, what: string, setting: string): void {
  const lock = `${path}.lock`;
  if (held.has(lock)) return;
  mkdirSync(dirname(lock), { recursive: true });
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(lock, String(process.pid), { flag: 'wx' });
      held.add(lock);
      process.once('exit', () => rmSync(lock, { force: true }));
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const owner = Number(readFileSync(lock, 'utf8').trim());
      if (Number.isSafeInteger(owner) && owner > 0 && owner !== process.pid && alive(owner)) {
        throw new SettingError(
          `${what} ${path} is in use by process ${owner}: give each process its own file (${setting})`,
        );
      }
      rmSync(lock, { force: true }); // left by a process that is gone
    }
  }
  throw new SettingError(`${what} ${path}: could not take ${lock}`);
}

/** Whether a process with this id exists (one we may not signal counts). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
