import { isFrameProblem, parseFrame, originOf, qualityRecord, type RecordSink, type FrameProblem, type ParsedFrame, type Origin, type CaptureCounters } from '../frames/index.ts';
import type { Frame } from '../../streams/types.ts';
import type { ConnectionCoverage, FrameTime } from './connection-coverage.ts';

/** A frame past the envelope checks: parsed, numbered, and the last one before it. */
export interface AdmittedFrame {
  parsed: ParsedFrame;
  origin: Origin;
  stamp: FrameTime;
  /** The frame received before this one (the last instant covered, should this one reveal a loss). */
  previous: FrameTime | null;
  /** Frame numbers the venue skipped before this one. */
  missed: number;
}

/**
 * The first steps of every stream's frame: count it, parse the envelope (an unparseable frame
 * becomes a data-quality record with the raw text, never an exception), drop a duplicate by the
 * venue's frame number, and remember it as the last frame received.
 */
export function admitFrame(
  frame: Frame,
  coverage: ConnectionCoverage,
  counters: CaptureCounters,
  sink: RecordSink,
  parse: (raw: string) => ParsedFrame | FrameProblem = parseFrame,
): AdmittedFrame | null {
  counters.frames += 1;
  counters.framesByStream[coverage.stream] = (counters.framesByStream[coverage.stream] ?? 0) + 1;
  counters.bytes += frame.raw.length;
  const origin = originOf(frame);
  const parsed = parse(frame.raw);
  if (isFrameProblem(parsed)) {
    sink.write([
      qualityRecord(
        { problem: parsed.problem, detail: parsed.detail, stream: coverage.stream },
        origin,
        null,
        frame.raw,
      ),
    ]);
    return null;
  }
  // Records of the frame carry its envelope's number (stored as frame_seq).
  if (parsed.seq !== null) origin.frameSeq = parsed.seq;
  const missed = coverage.admit(parsed.seq);
  if (missed === 'duplicate') {
    counters.duplicates += 1;
    return null;
  }
  const stamp: FrameTime = { venueTime: parsed.ts, receivedAtUs: frame.receivedAtUs };
  const previous = coverage.lastFrame;
  coverage.received(stamp, origin);
  return { parsed, origin, stamp, previous, missed };
}
