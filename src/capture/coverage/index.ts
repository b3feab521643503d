/**
 * What each connection covered and what it lost: a frame admitted (numbered, deduplicated, stamped
 * covered), the gap records with their bounds and scope, and the marks kept across restarts.
 */
export { admitFrame, type AdmittedFrame } from './admit-frame.ts';
export { ConnectionCoverage, LOSS_REASONS, attemptFailed, endOf, startOf, type FrameTime } from './connection-coverage.ts';
export { WHOLE_STREAM, gapRecord, scopeOf, type GapReason, type GapRecovery, type GapScope } from './gaps.ts';
export { CoverageMarks } from './marks.ts';
export { FileCoverageStore, MemoryCoverageStore, type CoverageStore } from './store.ts';
export { type StreamMark } from './stream-mark.ts';
