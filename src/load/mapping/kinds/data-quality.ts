import type { Json } from '../../../bus/record.ts';
import { arrayField, integer, payloadObject, requiredText, text, type Payload } from '../fields.ts';
import { streamPayload } from '../stream-payload.ts';
import type { MappedRow, Mapper } from '../types.ts';

/**
 * A finding of capture about the venue's data (`{problem, detail}` with the token, condition and
 * sequence it concerns): one data_quality row, or one per entry of a `problems` list.
 */
export const dataQualityMapper: Mapper = {
  table: 'data_quality',
  map(record) {
    const p = streamPayload(record);
    const listed = arrayField(p, 'problems');
    const findings: readonly Json[] = listed.length > 0 ? listed : [p];
    return findings.map((finding, i): MappedRow => {
      const f: Payload = payloadObject(finding, `problems[${i}]`);
      return {
        table: 'data_quality',
        row: {
          token_id: text(f, 'token_id', text(p, 'token_id')),
          condition_id: text(f, 'condition_id', text(p, 'condition_id')),
          problem: requiredText(f, 'problem'),
          detail: text(f, 'detail'),
          sequence: integer(f, 'sequence') ?? integer(p, 'sequence'),
          detected_at: record.receivedAtUs,
        },
      };
    });
  },
};
