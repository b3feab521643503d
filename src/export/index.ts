export { exportHistory, ExportRefused, type ExportOptions, type ExportSummary } from './export.ts';
export { MANIFEST_FILE, type ExportFormat, type Manifest } from './manifest.ts';
