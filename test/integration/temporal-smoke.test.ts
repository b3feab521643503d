import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, beforeAll } from 'vitest';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import * as activities from './fixtures/smoke-activities.ts';
import { TEMPORAL_ADDRESS, requireService } from './services.ts';

describe('real Temporal dev server (smoke)', () => {
  beforeAll(async () => {
    Runtime.install({ logger: new DefaultLogger('WARN') });
    await requireService('Temporal', TEMPORAL_ADDRESS);
  });

  it('runs a workflow with one activity on a worker', async () => {
    const taskQueue = `smoke-${randomUUID()}`;
    const workerConnection = await NativeConnection.connect({ address: TEMPORAL_ADDRESS });
    const worker = await Worker.create({
      connection: workerConnection,
      taskQueue,
      workflowsPath: fileURLToPath(new URL('./fixtures/smoke-workflows.ts', import.meta.url)),
      activities,
    });
    const connection = await Connection.connect({ address: TEMPORAL_ADDRESS });
    const client = new Client({ connection });
    try {
      const result = await worker.runUntil(
        client.workflow.execute('smokeWorkflow', { taskQueue, workflowId: `smoke-${randomUUID()}`, args: ['tape'] }),
      );
      expect(result).toBe('TAPE!');
    } finally {
      await connection.close();
      await workerConnection.close();
    }
  });
});
