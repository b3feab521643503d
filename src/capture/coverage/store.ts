import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';

/**
 * Where capture keeps, per stream, the last instant it had covered and durably published, so the
 * next start can record the time it was not running as a gap. The main job will keep this in the
 * warehouse; a scale-out capture process uses the file.
 */
export interface CoverageStore {
  /** µs since the epoch, or null when this stream was never covered before. */
  load(stream: string): Promise<bigint | null>;
  save(stream: string, coveredThroughUs: bigint): Promise<void>;
}

export class MemoryCoverageStore implements CoverageStore {
  readonly marks = new Map<string, bigint>();
  async load(stream: string): Promise<bigint | null> {
    return this.marks.get(stream) ?? null;
  }
  async save(stream: string, coveredThroughUs: bigint): Promise<void> {
    this.marks.set(stream, coveredThroughUs);
  }
}

/**
 * One small JSON file `{stream: "µs"}`, rewritten through a temporary file and a rename so a
 * crash leaves the old or the new marks, never half. One process per file.
 */
export class FileCoverageStore implements CoverageStore {
  #marks: Map<string, bigint> | undefined;
  #writing: Promise<void> = Promise.resolve();

  constructor(readonly path: string) {}

  async load(stream: string): Promise<bigint | null> {
    return (await this.#read()).get(stream) ?? null;
  }

  save(stream: string, coveredThroughUs: bigint): Promise<void> {
    const write = this.#writing.then(async () => {
      const marks = await this.#read();
      marks.set(stream, coveredThroughUs);
      const text = JSON.stringify(Object.fromEntries([...marks].map(([k, v]) => [k, v.toString()])), null, 1);
      await mkdir(dirname(this.path), { recursive: true });
      const temporary = `${this.path}.${process.pid}.tmp`;
      await writeFile(temporary, text);
      await rename(temporary, this.path);
    });
    this.#writing = write.catch(() => undefined);
    return write;
  }

  async #read(): Promise<Map<string, bigint>> {
    if (this.#marks) return this.#marks;
    let text = '{}';
    try {
      text = await readFile(this.path, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
    const parsed = JSON.parse(text) as Record<string, unknown>;
    this.#marks = new Map();
    for (const [stream, value] of Object.entries(parsed)) {
      if (typeof value === 'string' && /^\d+$/.test(value)) this.#marks.set(stream, BigInt(value));
    }
    return this.#marks;
  }
}
