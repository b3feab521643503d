import type { ReceivedRecord } from '../../bus/record.ts';
import { isObject, payloadObject, type Payload } from './fields.ts';

/**
 * The payload of a stream record: the frame's `data`, as capture publishes it. A payload that is
 * the whole frame (`{type, seq, ts, data}`) is read through to its data, keeping the frame's `ts`
 * when the data has none, so either form maps the same.
 */
export function streamPayload(record: ReceivedRecord): Payload {
  const p = payloadObject(record.payload);
  const data = p.data;
  if (typeof p.type !== 'string' || !isObject(data)) return p;
  return data.ts === undefined && p.ts !== undefined ? { ...data, ts: p.ts } : data;
}

/** Book sides as the warehouse writes them: BID and ASK (other values are kept, upper-cased). */
export function bookSide(value: string): string {
  switch (value) {
    case 'bid':
    case 'bids':
    case 'BID':
    case 'buy':
    case 'BUY':
      return 'BID';
    case 'ask':
    case 'asks':
    case 'ASK':
    case 'sell':
    case 'SELL':
      return 'ASK';
    default:
      return value.toUpperCase();
  }
}
