import { closeSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Append-only JSONL files in one folder, one per record kind. Lines are buffered and written on
 * `flush()` (every housekeeping tick and at close), so the log costs one write per file per tick.
 */
export class JsonlFiles<K extends string> {
  readonly #fds = new Map<K, number>();
  readonly #pending = new Map<K, string[]>();

  constructor(
    readonly dir: string,
    kinds: readonly K[],
  ) {
    mkdirSync(dir, { recursive: true });
    for (const kind of kinds) {
      this.#fds.set(kind, openSync(join(dir, `${kind}.jsonl`), 'a'));
      this.#pending.set(kind, []);
    }
  }

  append(kind: K, line: string): void {
    this.#pending.get(kind)?.push(line);
  }

  flush(): void {
    for (const [kind, lines] of this.#pending) {
      if (lines.length === 0) continue;
      const fd = this.#fds.get(kind);
      if (fd !== undefined) writeSync(fd, `${lines.join('\n')}\n`);
      this.#pending.set(kind, []);
    }
  }

  close(): void {
    this.flush();
    for (const fd of this.#fds.values()) closeSync(fd);
    this.#fds.clear();
  }
}
