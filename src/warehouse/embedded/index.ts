/**
 * chDB on a data directory: the library (loaded on first use), a session through @clickhouse/client,
 * the directory's lock and the file naming the running job's endpoint.
 */
export { loadChdb } from './chdb-library.ts';
export { openChdbSession } from './chdb-client.ts';
export {
  DEFAULT_DATA_DIR,
  DataDirectoryBusy,
  NoWarehouse,
  chdbPathOf,
  dataDirectoryHolder,
  requireWarehouse,
} from './data-dir.ts';
export {
  endpointFileOf,
  liveEndpoint,
  namedEndpoint,
  removeEndpointFile,
  writeEndpointFile,
  type EndpointInfo,
} from './endpoint-file.ts';
