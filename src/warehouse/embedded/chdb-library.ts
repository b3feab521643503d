import type * as Chdb from 'chdb';
import type * as ChdbConnectionModule from 'chdb/connection';
import { applyChdbAllocatorSettings } from './chdb-allocator.ts';

export interface ChdbLibrary {
  chdb: typeof Chdb;
  connection: typeof ChdbConnectionModule;
}

let library: Promise<ChdbLibrary> | undefined;

/**
 * libchdb, loaded on first use and only here: mapping it costs ~200 MiB of resident code and a few hundred
 * milliseconds, which a command that never opens a data directory (`--help`, `sql` through a running job's
 * endpoint) must not pay. Its allocator reads its settings as it loads, so they are set just before.
 */
export function loadChdb(): Promise<ChdbLibrary> {
  library ??= (async () => {
    applyChdbAllocatorSettings();
    const [chdb, connection] = await Promise.all([import('chdb'), import('chdb/connection')]);
    return { chdb, connection };
  })();
  return library;
}
