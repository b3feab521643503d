import { isoTime } from '../clock.ts';

/**
 * Frames are `{"type", "seq", "ts", "data"}`. Everything after `seq` is the same for every
 * connection a frame goes to, so it is serialised once (the tail) and each connection prepends
 * its own head with its own frame number.
 */
export function frameTail(atMs: number, dataJson?: string): string {
  return dataJson === undefined ? `,"ts":"${isoTime(atMs)}"}` : `,"ts":"${isoTime(atMs)}","data":${dataJson}}`;
}

export function frameText(type: string, seq: number, tail: string): string {
  return `{"type":"${type}","seq":${seq}${tail}`;
}
