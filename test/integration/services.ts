import { connect } from 'node:net';

/** Where the integration suites find the services `scripts/services.sh up` starts. */
export const KAFKA_BROKERS = (process.env.TAPEHOUSE_KAFKA_BROKERS ?? '127.0.0.1:9092').split(',');
export const TEMPORAL_ADDRESS = process.env.TAPEHOUSE_TEMPORAL_ADDRESS ?? '127.0.0.1:7233';

function reachable(hostPort: string, timeoutMs = 2000): Promise<boolean> {
  const [host, port] = splitHostPort(hostPort);
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

function splitHostPort(hostPort: string): [string, number] {
  const i = hostPort.lastIndexOf(':');
  return [hostPort.slice(0, i), Number(hostPort.slice(i + 1))];
}

/**
 * Fails the suite, with the command that fixes it, when a service is down. Integration suites
 * never skip: a green run means the real service was exercised.
 */
export async function requireService(name: string, hostPort: string): Promise<void> {
  if (!(await reachable(hostPort))) {
    throw new Error(`${name} is not reachable at ${hostPort}: start it with \`scripts/services.sh up\``);
  }
}
