/**
 * The schema: migrations from `sql/`, the baseline a fresh warehouse is built from, storage settings.
 */
export { migrateWarehouse } from './migrations.ts';
