import { createServer } from 'node:net';
import { SettingError } from '../util/setting-error.ts';

/**
 * The main job's loopback port is a setting (`--http-port`): a port another process holds is said
 * as such, naming the flag, before anything starts — not an EADDRINUSE once capture is running.
 */
export async function assertPortFree(port: number): Promise<void> {
  if (port === 0) return;
  const server = createServer();
  try {
    await new Promise<void>((resolve, reject) =>
      server.once('error', reject).listen({ port, host: '127.0.0.1', exclusive: true }, resolve),
    );
  } catch (err) {
    throw portRefused(port, err);
  } finally {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

/** The error a failed listen on `port` becomes: a setting error when the port is taken or not ours to use. */
export function portRefused(port: number, err: unknown): unknown {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'EADDRINUSE') {
    return new SettingError(
      `--http-port (TAPEHOUSE_HTTP_PORT): 127.0.0.1:${port} is in use by another process (another tapehouse run?); ` +
        'give another port, or 0 for any free one',
    );
  }
  if (code === 'EACCES')
    return new SettingError(
      `--http-port (TAPEHOUSE_HTTP_PORT): port ${port} needs privileges this process does not have; give a port above 1023, or 0`,
    );
  return err;
}
