/**
 * Every stream's frames read into records: the envelope (`parseFrame`), the fast scan of snapshot book frames,
 * `_micro` values made canonical, the record builders (a record from a frame; a data-quality finding), the counters
 * every stream bumps, and the sink records are written to. Imports nothing else of capture.
 */
export { RateMeter, countLoss, newCounters, type CaptureCounters } from './counters.ts';
export {
  hasUnknownKeys,
  isFrameProblem,
  isoToMicros,
  microsToIso,
  parseFrame,
  type FrameProblem,
  type JsonObject,
  type ParsedFrame,
} from './frame.ts';
export { MAX_NESTING, canonicalMicro, normaliseMicros } from './micro-fields.ts';
export { originOf, qualityRecord, record, type Origin, type QualityProblem } from './record-builders.ts';
export { type RecordSink } from './record-sink.ts';
export { levelsOf, scanSnapshot, type Level, type ScannedSnapshot, type SideTexts } from './snapshot-scan.ts';
