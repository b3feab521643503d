import { DECLARATIONS, type DeclarationOf, type RecordKind } from './catalogue.ts';
import type { KeyHints } from './kind.ts';

/** The payload of every record kind, as its declaration says (src/records/kinds/). */
export type Payloads = { [K in RecordKind]: NonNullable<DeclarationOf<K>['payload']> };

/** The kinds the sync jobs make, each from the venue's item as the client parsed it (bigints and all). */
type SyncKind = {
  [K in RecordKind]: [NonNullable<DeclarationOf<K>['source']>] extends [never] ? never : K;
}[RecordKind];

/** What each sync kind is made from. */
export type SyncSources = { [K in SyncKind]: NonNullable<DeclarationOf<K>['source']> };

export type Payload<K extends RecordKind> = Payloads[K];

/** The record key of a payload of kind K, by its declaration's key function (src/records/kinds/). */
export function keyOf<K extends RecordKind>(kind: K, payload: Payload<K>, hints: KeyHints = {}): string {
  const key = DECLARATIONS[kind].topic.key as { of(payload: Payload<K>, hints: KeyHints): string };
  return key.of(payload, hints);
}
