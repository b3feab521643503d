import { appendFileSync } from 'node:fs';

/** Where run.sh put the endpoint and the other parts' reports. */
export function conformanceEnv(): { url: string; dir: string } {
  const url = process.env.TAPEHOUSE_CONFORMANCE_URL;
  const dir = process.env.TAPEHOUSE_CONFORMANCE_DIR;
  if (!url || !dir)
    throw new Error('run through test/conformance/run.sh (TAPEHOUSE_CONFORMANCE_URL and _DIR are not set)');
  return { url, dir };
}

/** One line of the suite's summary: client, queries run, queries ok (run.sh prints the table). */
export function recordTally(dir: string, client: string, run: number, ok: number, note = ''): void {
  appendFileSync(`${dir}/tally.tsv`, `${client}\t${run}\t${ok}\t${note}\n`);
}
