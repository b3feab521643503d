import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { storeKey, type Checkpoint, type CheckpointStore } from './checkpoint.ts';

/**
 * Checkpoints in one JSON file, for a single worker without a warehouse at hand. Every save
 * rewrites the file through a temporary file and a rename, so a crash leaves the old or the new
 * content, never half of one. One process per file: saves are serialised within the process only.
 */
export class FileCheckpointStore implements CheckpointStore {
  #cache: Map<string, Checkpoint> | undefined;
  #writing: Promise<void> = Promise.resolve();

  constructor(readonly path: string) {}

  async load(job: string, scope: string): Promise<Checkpoint | undefined> {
    return (await this.#read()).get(storeKey(job, scope));
  }

  save(job: string, scope: string, checkpoint: Checkpoint): Promise<void> {
    const write = this.#writing.then(async () => {
      const all = await this.#read();
      all.set(storeKey(job, scope), structuredClone(checkpoint));
      await mkdir(dirname(this.path), { recursive: true });
      const temporary = `${this.path}.${process.pid}.tmp`;
      await writeFile(temporary, JSON.stringify(Object.fromEntries(all), null, 1));
      await rename(temporary, this.path);
    });
    this.#writing = write.catch(() => undefined);
    return write;
  }

  async #read(): Promise<Map<string, Checkpoint>> {
    if (this.#cache) return this.#cache;
    let text: string;
    try {
      text = await readFile(this.path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      text = '{}';
    }
    this.#cache = new Map(Object.entries(JSON.parse(text) as Record<string, Checkpoint>));
    return this.#cache;
  }
}
