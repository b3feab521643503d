/**
 * The capture part's door: what the main job and the `capture`/`book` commands use. Inside, one folder per job
 * (README.md, "Layout"): `frames/` reads every stream's frames into records, `books/` keeps each token's book and
 * turns snapshots into level changes, `coverage/` knows what was covered and writes the gaps, `market/`, `account/`
 * and `prices/` are the streams.
 */
import { Capture } from './capture.ts';
import type { CaptureHandle, CaptureOptions } from './capture-options.ts';

export {
  CAPTURE_DEFAULTS,
  STREAM_PATHS,
  type CaptureHandle,
  type CaptureOptions,
  type CaptureStats,
} from './capture-options.ts';
export { FileCoverageStore } from './coverage/index.ts';
export { bookAt } from './books/index.ts';

/** Starts capturing the venue's streams into the bus. Resolves once the catalogue is read and the sockets are opening. */
export function startCapture(options: CaptureOptions): Promise<CaptureHandle> {
  return Capture.start(options);
}
