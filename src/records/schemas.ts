import type { z } from 'zod';
import { DECLARATIONS, type DeclarationOf, type RecordKind } from './catalogue.ts';
import type { Payload } from './payloads.ts';
import type { RecordOf } from './record.ts';

/**
 * Each kind's schema for the bus boundary (in the kind's module, next to its payload type): what a
 * payload read back from the bus must be to be loaded. A consumer parses the payload with its
 * kind's schema and reads the result typed (`Read<K>`); a misfit is a dead letter naming its field
 * (src/load/mapping/map-delivery.ts).
 */
export const PAYLOAD_SCHEMAS = Object.fromEntries(Object.values(DECLARATIONS).map((d) => [d.name, d.schema])) as {
  readonly [K in RecordKind]: DeclarationOf<K>['schema'];
};

/**
 * A payload of kind K as read at the bus boundary: what its schema gives. It is wider than
 * `Payload<K>` where the loaders read older or foreign records (an id as a number, an amount as a
 * JSON number, the older form of a kind); fields no one checks travel on as sent.
 */
export type Read<K extends RecordKind> = z.output<(typeof PAYLOAD_SCHEMAS)[K]>;

/** A record read back from the bus whose payload its kind's schema has read. */
export type ReadRecord<K extends RecordKind = RecordKind> = K extends RecordKind
  ? Omit<RecordOf<K>, 'payload'> & { payload: Read<K> }
  : never;

/**
 * The type and the schema agree (checked when compiling): every payload a producer can build
 * (`Payload<K>`) is one its kind's schema accepts (`z.input`). A kind whose type and schema drift
 * apart names itself here.
 */
type SchemaRefusesItsType = {
  [K in RecordKind]: Payload<K> extends z.input<(typeof PAYLOAD_SCHEMAS)[K]> ? never : K;
}[RecordKind];
export const EVERY_TYPED_PAYLOAD_FITS_ITS_SCHEMA: [SchemaRefusesItsType] extends [never] ? true : SchemaRefusesItsType =
  true;
