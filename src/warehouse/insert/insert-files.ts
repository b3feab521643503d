import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { unlink, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { alive } from '../../util/file-lock.ts';

const PREFIX = 'tapehouse-insert-';
const TMPFS = '/dev/shm';

// This process's directories, removed as it exits (one listener, however many warehouses it opens).
const ours = new Set<string>();
process.once('exit', () => {
  for (const dir of ours) rmSync(dir, { recursive: true, force: true });
});

/**
 * The files chDB reads a Native insert from: one per insert, in a directory of this process on
 * tmpfs (/dev/shm) when the machine has one, else next to the chDB data (`<dataDir>/insert-files`),
 * removed once the insert has settled; the directory goes when the process exits. A killed process
 * leaves its directory behind: the next one to open removes the directories of processes that are gone.
 */
export class InsertFiles {
  readonly #base: string;
  #dir: string | undefined;
  #next = 0;

  /** `chdbPath`: the chDB session's directory (`<dataDir>/clickhouse`). */
  constructor(chdbPath: string) {
    this.#base = existsSync(TMPFS) ? TMPFS : join(dirname(chdbPath), 'insert-files');
  }

  /** Writes `payload` to a fresh file, runs `read(path)`, then removes the file. */
  async with<T>(payload: Buffer, read: (path: string) => Promise<T>): Promise<T> {
    const path = join(this.#directory(), `${this.#next++}.native`);
    await writeFile(path, payload);
    try {
      return await read(path);
    } finally {
      await unlink(path).catch(() => undefined);
    }
  }

  #directory(): string {
    if (this.#dir !== undefined && existsSync(this.#dir)) return this.#dir;
    mkdirSync(this.#base, { recursive: true });
    removeOrphans(this.#base);
    this.#dir = mkdtempSync(join(this.#base, `${PREFIX}${process.pid}-`));
    ours.add(this.#dir);
    return this.#dir;
  }
}

function removeOrphans(base: string): void {
  for (const name of readdirSync(base)) {
    if (!name.startsWith(PREFIX)) continue;
    const pid = Number(name.slice(PREFIX.length).split('-', 1)[0]);
    if (Number.isInteger(pid) && pid !== process.pid && !alive(pid))
      rmSync(join(base, name), { recursive: true, force: true });
  }
}
