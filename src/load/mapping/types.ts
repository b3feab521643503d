import type { DeclaredTable, ReadRecord, RecordKind, TablesOf } from '../../records/index.ts';
import type { CellValue } from '../../warehouse/insert/index.ts';

/** Every table a loader writes to (sql/README.md documents each): the kinds' declared tables, and the dead letters. */
export type TableName = DeclaredTable | 'dead_letters';

/**
 * Tables renamed by a migration (0170: a history is `<entity>_observations`), old name → new. A
 * loader's bookkeeping written before names the old one; the old names stay as views for a release.
 */
export const RENAMED_TABLES: Readonly<Record<string, TableName>> = {
  orders: 'order_observations',
  positions: 'position_observations',
};

/** A row being built: column → value; provenance columns are added by the loader. */
export type Row = Record<string, CellValue>;

export interface MappedRow {
  table: TableName;
  row: Row;
}

/**
 * Turns one record of kind K into rows, possibly of several tables (a market gives its markets row
 * and an outcomes row per outcome). It reads the payload its kind's schema gave (`Read<K>`,
 * src/records/schemas.ts: map-delivery parses it at the bus boundary first). Pure: the same record
 * always gives the same rows, which is what lets a batch be rebuilt identically after a crash.
 * Throws MappingError when the record does not fit what the schema leaves to it (a value's range,
 * a time, an entry of a list).
 */
export interface Mapper<K extends RecordKind = RecordKind> {
  /** The table a record of this kind is for (named by its dead letter when mapping fails). */
  readonly table: TablesOf<K>;
  /**
   * Every field of the payload has a column: a record its producer published without the raw
   * frame (capture's derived book changes) then keeps no `_raw` either. Otherwise the payload's
   * JSON stands in for the missing raw frame, so what the mapping drops is still kept.
   */
  readonly coversPayload?: boolean;
  map(record: ReadRecord<K>): MappedRow[];
}
