import { captureGapSchema, type CaptureGapPayload } from '../capture-gap.ts';
import { declareKind, FINDINGS_TOPIC } from '../kind.ts';

/** `capture_gap`: coverage lost (src/records/capture-gap.ts). */
export const captureGap = declareKind<CaptureGapPayload>()({
  name: 'capture_gap',
  schema: captureGapSchema,
  topic: { suffix: 'capture.gaps', ...FINDINGS_TOPIC, key: { what: 'stream', of: (p) => p.stream } },
  tables: ['capture_gaps'],
  producer: 'capture and sync',
  from: 'capture: `{stream, reason, detail, gap_start, gap_end, scope, recovery}`, one row per channel × subject of its `scope`; no `gap_end` = coverage ended on purpose, a gap of no length',
});
