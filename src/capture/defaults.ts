/**
 * Capture's defaults, in a module that imports nothing: the settings table (and with it every
 * command's `--help`) reads them without loading capture.
 */
export const CAPTURE_DEFAULTS = {
  tokensPerConnection: 200,
  silenceMs: 30_000,
  catalogueRefreshMs: 60_000,
  anchorEveryMs: 15 * 60_000,
  dropGraceMs: 2 * 60_000,
  reseedConcurrency: 4,
  markEveryMs: 2_000,
  maxQueuedRecords: 50_000,
  notOfferedRetryMs: 30 * 60_000,
};
