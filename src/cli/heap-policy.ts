import { setFlagsFromString } from 'node:v8';

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

export function applyHeapPolicy(): void {
  setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
}
