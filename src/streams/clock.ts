import { systemClock, type Clock } from '../api/clock.ts';
import { nowMicros } from '../bus/record.ts';

/**
 * Time as streams and capture see it: the api Clock (differences in ms, and waits) plus the wall
 * time in µs that every frame and record is stamped with. One object, so a test that moves time
 * by hand moves the watchdog, the backoff and the record times together.
 */
export interface StreamClock extends Clock {
  /** Wall time: µs since the Unix epoch. */
  epochMicros(): bigint;
}

export const systemStreamClock: StreamClock = { now: systemClock.now, sleep: systemClock.sleep, epochMicros: nowMicros };
