import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import proto from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import { describe, expect, it } from 'vitest';
import { WORKFLOWS_PATH } from '../workflows/worker.ts';

/**
 * The versioning guard (src/sync/README.md, "Changing the workflow"): histories recorded by
 * earlier versions of the sync workflow — slices, continue-as-new, an endpoint not offered, a
 * backfill window — replay against the current workflow code without a nondeterminism error. A
 * change that would break runs in flight at a redeploy (backfills run for hours) fails here; it
 * must go behind `patched()`. No server needed: the replayer runs the workflow bundle locally.
 */
const DIR = fileURLToPath(new URL('./fixtures/workflow-histories/', import.meta.url));
const histories = readdirSync(DIR)
  .filter((name) => name.endsWith('.history.pb'))
  .sort()
  .map((name) => ({
    workflowId: name,
    history: proto.temporal.api.history.v1.History.decode(readFileSync(`${DIR}${name}`)),
  }));

async function replay(workflowsPath: string): Promise<Array<{ workflowId: string; error?: unknown }>> {
  const results: Array<{ workflowId: string; error?: unknown }> = [];
  for await (const result of Worker.runReplayHistories({ workflowsPath }, histories))
    results.push({ workflowId: result.workflowId, error: result.error });
  return results;
}

describe('sync workflow versioning', () => {
  it('every recorded history replays against the current workflow code', async () => {
    expect(histories.length).toBeGreaterThanOrEqual(3);
    const results = await replay(WORKFLOWS_PATH);
    expect(
      results.map((r) => ({ id: r.workflowId, error: r.error === undefined ? undefined : String(r.error) })),
    ).toEqual(histories.map((h) => ({ id: h.workflowId, error: undefined })));
  }, 120_000);

  it('a workflow that changed its commands fails the replay (the guard can fail)', async () => {
    const results = await replay(
      fileURLToPath(new URL('./fixtures/workflow-histories/changed-workflow.ts', import.meta.url)),
    );
    expect(results.filter((r) => r.error !== undefined).length).toBe(histories.length);
    expect(String(results[0]!.error)).toMatch(/[Nn]ondeterminis/);
  }, 120_000);
});
