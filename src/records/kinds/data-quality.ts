import { dataQualitySchema, type DataQualityPayload } from '../data-quality.ts';
import { declareKind, FINDINGS_TOPIC } from '../kind.ts';

/** `data_quality`: something the venue sent that cannot be right (src/records/data-quality.ts). */
export const dataQuality = declareKind<DataQualityPayload>()({
  name: 'data_quality',
  schema: dataQualitySchema,
  topic: {
    suffix: 'capture.quality',
    ...FINDINGS_TOPIC,
    key: { what: 'condition_id', of: (p) => p.condition_id ?? p.stream },
  },
  tables: ['data_quality'],
  producer: 'capture and sync',
  from: 'capture: `{problem, detail, stream, token_id, condition_id, frame_seq}`',
});
