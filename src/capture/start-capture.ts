import { Capture } from './capture.ts';
import type { CaptureHandle, CaptureOptions } from './capture-options.ts';

export {
  CAPTURE_DEFAULTS,
  STREAM_PATHS,
  type CaptureHandle,
  type CaptureOptions,
  type CaptureStats,
} from './capture-options.ts';

/** Starts capturing the venue's streams into the bus. Resolves once the catalogue is read and the sockets are opening.
 * */
export function startCapture(options: CaptureOptions): Promise<CaptureHandle> {
  return Capture.start(options);
}
