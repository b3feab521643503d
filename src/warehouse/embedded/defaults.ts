/**
 * The embedded warehouse's defaults, in a module that imports nothing: the settings table (and
 * with it every command's `--help`) reads them without loading chDB's wrappers.
 */
export const DEFAULT_DATA_DIR = './data';
