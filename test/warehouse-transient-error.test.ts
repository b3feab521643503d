import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { openWarehouse } from '../src/warehouse/warehouse.ts';
import { isTransientWarehouseError } from '../src/warehouse/transient-error.ts';

/** `tapehouse migrate --retry-for` retries only what passes by itself (docker-compose.yml's migrate job). */
describe('a warehouse failure that passes by itself', () => {
  it('is a server not listening yet, not an SQL error or a wrong password', async () => {
    // A port that was free a moment ago: nothing listens there.
    const port = await new Promise<number>((resolve) => {
      const server = createServer().listen(0, '127.0.0.1', () => {
        const { port: free } = server.address() as { port: number };
        server.close(() => resolve(free));
      });
    });
    const warehouse = await openWarehouse({ kind: 'server', url: `http://127.0.0.1:${port}` });
    const refused = await warehouse.client.query({ query: 'SELECT 1' }).then(
      () => undefined,
      (error: unknown) => error,
    );
    await warehouse.close();
    expect(refused).toBeDefined();
    expect(isTransientWarehouseError(refused)).toBe(true);

    const syntax = Object.assign(new Error('Code: 62. DB::Exception: Syntax error: failed at position 1'), {
      code: '62',
    });
    const password = Object.assign(new Error('Code: 516. DB::Exception: tapehouse: Authentication failed'), {
      code: '516',
    });
    expect(isTransientWarehouseError(syntax)).toBe(false);
    expect(isTransientWarehouseError(password)).toBe(false);
    const busy = Object.assign(new Error('Code: 202. DB::Exception: Too many simultaneous queries'), { code: '202' });
    expect(isTransientWarehouseError(busy)).toBe(true);
  });
});
