export {
  rederiveTable,
  RederiveError,
  type RederiveOptions,
  type RederiveProgress,
  type RederiveResult,
} from './rederive.ts';
export { pendingRederives, rederivePending } from './requests.ts';
export { REDERIVABLE } from './stored-record.ts';
