import type { Json } from '../../../bus/record.ts';
import { arrayField, integer, payloadObject, requiredText, text, type Payload } from '../fields.ts';
import type { MappedRow, Mapper } from '../types.ts';

/**
 * A finding of capture about the venue's data (`{problem, detail, stream}` with the token,
 * condition and frame number it concerns): one data_quality row, or one per entry of a `problems`
 * list. The offending frame is the record's raw text.
 */
export const dataQualityMapper: Mapper<'data_quality'> = {
  table: 'data_quality',
  map(record) {
    const p = record.payload;
    const listed = arrayField(p, 'problems');
    const findings: readonly Json[] = listed.length > 0 ? listed : [p];
    return findings.map((finding, i): MappedRow => {
      const f: Payload = payloadObject(finding, `problems[${i}]`);
      return {
        table: 'data_quality',
        row: {
          token_id: text(f, 'token_id', text(p, 'token_id')),
          condition_id: text(f, 'condition_id', text(p, 'condition_id')),
          stream: text(f, 'stream', text(p, 'stream')),
          problem: requiredText(f, 'problem'),
          detail: text(f, 'detail'),
          sequence:
            integer(f, 'sequence') ?? integer(f, 'frame_seq') ?? integer(p, 'sequence') ?? integer(p, 'frame_seq'),
          detected_at: record.receivedAtUs,
        },
      };
    });
  },
};
