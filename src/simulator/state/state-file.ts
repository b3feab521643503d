import { close, closeSync, fsync, fsyncSync, mkdirSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs';
import { rename } from 'node:fs/promises';
import { promisify } from 'node:util';
import { dirname } from 'node:path';
import { lockStateFile } from '../../util/file-lock.ts';
import { SettingError } from '../../util/setting-error.ts';
import type { WorldState } from '../venue.ts';
import { decodeState, encodeState } from './codec.ts';

/** What the file says it is; a reader refuses any other format and any version above its own. */
export const STATE_FORMAT = 'tapehouse-venue-state';
export const STATE_VERSION = 1;
/** The venue's own tokens are in the file (no real credential, but nobody else's to read). */
const OWNER_ONLY = 0o600;

/** One save of a venue. */
export interface SavedVenue {
  /** Which start of the venue wrote it (prng.ts `prngStreams`); the next start is one more. */
  generation: number;
  /** Written at a stop, with nothing issued after it; false for the periodic saves a kill may leave behind. */
  clean: boolean;
  world: WorldState;
}

/**
 * The file a venue is saved in: written whole through a temporary file, flushed to disk and
 * renamed over the old one, so a kill at any instant leaves the previous save or the new one, never
 * half of one. One process per file (`<file>.lock`).
 */
export class VenueStateFile {
  #writing: Promise<void> | undefined;

  constructor(readonly path: string) {
    lockStateFile(path, 'venue state', 'one data directory or --state-file per venue');
  }

  /** The saved venue, or undefined when there is no file yet. A file it cannot read is an error that says what to do.
   */
  read(): SavedVenue | undefined {
    let text: string;
    try {
      text = readFileSync(this.path, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw this.#refusal(`cannot be read (${(err as Error).message})`);
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (err) {
      throw this.#refusal(`is not a venue state (${(err as Error).message})`);
    }
    const file = parsed as Partial<{
      format: unknown;
      version: unknown;
      generation: unknown;
      clean: unknown;
      strings: unknown;
      world: unknown;
    }>;
    if (typeof parsed !== 'object' || parsed === null || file.format !== STATE_FORMAT)
      throw this.#refusal(`is not a venue state (no "format": "${STATE_FORMAT}")`);
    if (typeof file.version !== 'number' || !Number.isInteger(file.version) || file.version < 1)
      throw this.#refusal('has no state version');
    if (file.version > STATE_VERSION) {
      throw this.#refusal(
        `was written by a newer tapehouse (state version ${file.version}; this one reads version ${STATE_VERSION})`,
      );
    }
    if (
      typeof file.generation !== 'number' ||
      !Number.isSafeInteger(file.generation) ||
      file.generation < 0 ||
      typeof file.world !== 'object' ||
      file.world === null ||
      !Array.isArray(file.strings)
    ) {
      throw this.#refusal('is damaged (no generation, strings or world)');
    }
    let world: WorldState;
    try {
      world = decodeState(file.world, file.strings as string[]) as WorldState;
    } catch (err) {
      throw this.#refusal(`is damaged (${(err as Error).message})`);
    }
    return { generation: file.generation, clean: file.clean === true, world };
  }

  /** Saves at once (start and stop). */
  saveSync(saved: SavedVenue): void {
    const fd = this.#write(saved);
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(this.#temporary(), this.path);
  }

  /**
   * Saves the world as it is now (its text is written at once, in pieces) and leaves the flush
   * to disk and the rename to the thread pool. A save still being flushed makes this one a no-op:
   * the next one comes soon enough.
   */
  save(saved: SavedVenue): Promise<void> {
    if (this.#writing) return this.#writing;
    const fd = this.#write(saved);
    const finish = async (): Promise<void> => {
      try {
        await promisify(fsync)(fd);
      } finally {
        await promisify(close)(fd);
      }
      await rename(this.#temporary(), this.path);
    };
    this.#writing = finish().finally(() => (this.#writing = undefined));
    return this.#writing;
  }

  /** The file's text into a temporary file: the header first (readable by any version), then the world and its strings
   * (codec.ts). */
  #write(saved: SavedVenue): number {
    mkdirSync(dirname(this.path), { recursive: true });
    const fd = openSync(this.#temporary(), 'w', OWNER_ONLY);
    try {
      const header = JSON.stringify({
        format: STATE_FORMAT,
        version: STATE_VERSION,
        generation: saved.generation,
        clean: saved.clean,
        saved_at: new Date().toISOString(),
      });
      writeSync(fd, `${header.slice(0, -1)},"world":`);
      const strings = encodeState(saved.world, (text) => writeSync(fd, text));
      writeSync(fd, ',"strings":[');
      for (let i = 0; i < strings.length; i += 4096)
        writeSync(
          fd,
          `${i > 0 ? ',' : ''}${strings
            .slice(i, i + 4096)
            .map((text) => JSON.stringify(text))
            .join(',')}`,
        );
      writeSync(fd, ']}\n');
      return fd;
    } catch (err) {
      closeSync(fd);
      throw err;
    }
  }

  /** Waits for a save being written. */
  async settled(): Promise<void> {
    await this.#writing?.catch(() => undefined);
  }

  #temporary(): string {
    return `${this.path}.${process.pid}.tmp`;
  }

  #refusal(why: string): SettingError {
    return new SettingError(
      `venue state ${this.path} ${why}: the venue cannot resume from it. Run the tapehouse that wrote it, ` +
        'or move the file away to start a new venue world (src/simulator/README.md, "A world that goes on").',
    );
  }
}
