import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * How far V8 lets its old generation grow past what the last full collection kept: by half again
 * (`--heap-growing-percent=50`), not by V8's own factor, which reaches 4× when collections are
 * cheap. A job at rate 20 keeps ~50 MiB of live objects and passes many more through (records
 * held for a batch's second survive the young generation and die old); with V8's factor its
 * committed heap swung between 86 and 194 MiB, with this one between 94 and 110, for no CPU
 * measured (side by side over 20 minutes, DEVELOPERS.md). Read at every collection, so it
 * takes effect when set at start. (The young generation's size is fixed when the heap is made:
 * only a command-line flag changes it.)
 */
export const HEAP_GROWING_PERCENT = 50;

/**
 * How often the old generation is compacted whole. V8's full collections move objects off only
 * the pages its heuristics pick, so a long run's old space keeps pages a few live objects pin
 * (long-lived entries allocated among a batch's short-lived ones): its committed size crept up
 * ~26 MiB an hour at rate 20 while the used heap hardly did (DEVELOPERS.md). One compacting
 * collection every two minutes gives those pages back.
 */
export const COMPACT_EVERY_MS = 120_000;

export function applyHeapPolicy(): void {
  setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
  const compact = compactingCollection();
  setInterval(compact, COMPACT_EVERY_MS).unref();
}

/**
 * A full collection that compacts every page: V8's `gc` (exposed for this, in a context of its
 * own, not on globalThis) with `--compact-on-every-full-gc` set for that collection only.
 */
function compactingCollection(): () => void {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  setFlagsFromString('--no-expose-gc');
  return () => {
    setFlagsFromString('--compact-on-every-full-gc');
    try {
      gc();
    } finally {
      setFlagsFromString('--no-compact-on-every-full-gc');
    }
  };
}
