/**
 * Streams benchmark: market-stream frames per second the simulator sustains to 1 and to 20
 * connected clients, each subscribed to orderbook, best_quote and trades of every event.
 * The clients run in a child process (bench/simulator-streams-clients.ts: plain `ws`, every frame
 * JSON-parsed) so they do not share the simulator's event loop; the producer never runs more than
 * a few batches ahead of what the clients have received, so the figure is a sustained rate, not a
 * burst into socket buffers. CPU shares of both processes are printed: on a shared machine the
 * figure is bounded by whichever side gets the cores.
 * Run: npx tsx bench/simulator-streams.ts   (about 25 s)
 */
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { ManualClock, startSimulator, type SimulatorHandle } from '../src/simulator/index.ts';

const SECONDS = 8;
const STEPS_PER_BATCH = 100;
const MAX_BATCHES_AHEAD = 10;

interface Received {
  frames: number;
  bytes: number;
  /** CPU time the clients' process has used. */
  cpuMicros: number;
}

const CLIENTS_SCRIPT = fileURLToPath(new URL('./simulator-streams-clients.ts', import.meta.url));

interface Measured {
  framesPerSecond: number;
  mbPerSecond: number;
  updatesPerSecond: number;
  /** CPU seconds per wall second of the simulator's process and of the clients' process. */
  simulatorCpu: number;
  clientsCpu: number;
}

async function measure(clients: number): Promise<Measured> {
  const clock = new ManualClock();
  const sim: SimulatorHandle = await startSimulator({
    seed: 1,
    rate: 0,
    clock,
    deployment: { limits: { account: false, ipBurst: false, edge: false } },
  });
  const eventIds = sim.venue.catalogue.events.map((e) => e.id);
  const child: ChildProcess = fork(
    CLIENTS_SCRIPT,
    [JSON.stringify({ url: `${sim.wsUrl}/trade/v1/market-stream`, clients, eventIds })],
    {
      cwd: process.cwd(),
      stdio: 'inherit',
    },
  );
  const received: Received = { frames: 0, bytes: 0, cpuMicros: 0 };
  let ready = false;
  child.on('message', (m: Partial<Received> & { ready?: boolean }) => {
    if (m.ready) ready = true;
    if (m.frames !== undefined) Object.assign(received, m);
  });
  const sent = (): number => [...sim.streams.market.connections].reduce((s, c) => s + c.seq, 0);
  const waitFor = async (condition: () => boolean): Promise<void> => {
    const deadline = performance.now() + 20_000;
    while (!condition()) {
      if (performance.now() > deadline) throw new Error('the clients stopped receiving');
      await new Promise((r) => setTimeout(r, 2));
    }
  };
  await waitFor(() => ready && sim.streams.market.connections.size === clients);
  await waitFor(() => received.frames >= sent() && sent() >= clients * 2);

  let updates = 0;
  sim.venue.events.on('book', () => void updates++);
  const startFrames = received.frames;
  const startBytes = received.bytes;
  const startClientsCpu = received.cpuMicros;
  const start = performance.now();
  const cpuStart = process.cpuUsage();
  let batchFrames = 0;
  while (performance.now() - start < SECONDS * 1000) {
    const before = sent();
    for (let i = 0; i < STEPS_PER_BATCH; i++) sim.venue.traders.step();
    batchFrames = Math.max(batchFrames, sent() - before);
    // Back-pressure: stay at most a few batches ahead of what the clients have taken in.
    await waitFor(() => received.frames >= sent() - MAX_BATCHES_AHEAD * batchFrames);
  }
  await waitFor(() => received.frames >= sent());
  const seconds = (performance.now() - start) / 1000;
  const cpu = process.cpuUsage(cpuStart);
  child.send('stop');
  await sim.close();
  return {
    framesPerSecond: (received.frames - startFrames) / seconds,
    mbPerSecond: (received.bytes - startBytes) / seconds / 1e6,
    updatesPerSecond: updates / seconds,
    simulatorCpu: (cpu.user + cpu.system) / 1e6 / seconds,
    clientsCpu: (received.cpuMicros - startClientsCpu) / 1e6 / seconds,
  };
}

const one = await measure(1);
const twenty = await measure(20);
const fmt = (n: number): string => Math.round(n).toLocaleString('en');
const cpu = (m: Measured): string =>
  `CPU: simulator ${m.simulatorCpu.toFixed(2)}, clients ${m.clientsCpu.toFixed(2)} cores`;
console.log(
  `1 client:   ${fmt(one.framesPerSecond)} frames/s delivered (${one.mbPerSecond.toFixed(1)} MB/s), ${fmt(one.updatesPerSecond)} token book updates/s; ${cpu(one)}`,
);
console.log(
  `20 clients: ${fmt(twenty.framesPerSecond)} frames/s delivered in total (${fmt(twenty.framesPerSecond / 20)} per client, ${twenty.mbPerSecond.toFixed(1)} MB/s), ${fmt(twenty.updatesPerSecond)} token book updates/s; ${cpu(twenty)}`,
);
console.log(
  `ratio 20 clients / 1 client (total frames/s): ${(twenty.framesPerSecond / one.framesPerSecond).toFixed(1)}`,
);
