/** The sync jobs' names, importing nothing: the commands check `--jobs` without loading the jobs. */
export const JOB_NAMES = [
  'catalogue',
  'portfolio_summary',
  'positions',
  'open_orders',
  'orders',
  'order_trades',
  'portfolio_trades',
  'activities',
  'pnl',
  'rebates',
  'lp_incentives',
  'withdrawal_assets',
  // sync: lookup maps, sports sections, categories, account batches
  'sports_sections',
  'categories',
  'account_batches',
] as const;

export type JobName = (typeof JOB_NAMES)[number];

export function isJobName(value: string): value is JobName {
  return (JOB_NAMES as readonly string[]).includes(value);
}

/** Parses a comma-separated list of job names (all jobs when empty). */
export function parseJobList(text: string | undefined): JobName[] {
  if (text === undefined || text.trim() === '') return [...JOB_NAMES];
  const names = text.split(',').map((name) => name.trim());
  const unknown = names.filter((name) => !isJobName(name));
  if (unknown.length > 0)
    throw new Error(`unknown sync job(s): ${unknown.join(', ')} (known: ${JOB_NAMES.join(', ')})`);
  return names as JobName[];
}
