import { setVariableForNativeLibrary } from '../../util/environment.ts';

/**
 * chDB's allocator settings, put in the environment before libchdb loads. chDB carries a jemalloc
 * of its own, which reads `JE_MALLOC_CONF` once, as the library loads (DEVELOPERS.md). Built in, it
 * keeps freed pages 5 s before giving them back (`dirty_decay_ms:5000`). A live job's inserts free
 * ~420 one-megabyte buffers a second, and those kept pages were most of its memory growth. Side by
 * side at rate 20 (bench/soak-memory, minutes 13–20): the job's RSS 595–717 MiB with the built-in
 * setting (dirty pages 47–159 MiB), 513–594 MiB given back at once (dirty pages 0), for about a
 * tenth of a core more (pages faulted in again).
 *
 * The library is loaded in one place only (chdb-library.ts), which calls this first. A
 * JE_MALLOC_CONF already set (by the user, to tune or to measure) is left as it is.
 */
export const CHDB_ALLOCATOR_SETTINGS = 'dirty_decay_ms:0';

export function applyChdbAllocatorSettings(): void {
  setVariableForNativeLibrary('JE_MALLOC_CONF', CHDB_ALLOCATOR_SETTINGS);
}
