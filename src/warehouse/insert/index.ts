/**
 * The loaders' inserts: rows encoded as Native (or TabSeparated) blocks and sent through chDB or HTTP.
 */
export {
  RowInserter,
  chdbTransport,
  httpTransport,
  type InsertOptions,
  type InsertSummary,
  type InsertTransport,
  type PreparedInsert,
} from './insert-rows.ts';
export { type InsertRow } from './row-encoder.ts';
export { InsertValueError, type CellValue } from './tsv-encoders.ts';
