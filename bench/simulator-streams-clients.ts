/**
 * The client side of bench/simulator-streams.ts, run as a child process: N plain `ws` clients
 * subscribed to every event's orderbook, best_quote and trades, parsing every frame and
 * reporting how many frames and bytes arrived.
 */
import WebSocket from 'ws';

const { url, clients, eventIds } = JSON.parse(process.argv[2] ?? '{}') as {
  url: string;
  clients: number;
  eventIds: string[];
};
let frames = 0;
let bytes = 0;
let open = 0;
for (let i = 0; i < clients; i++) {
  const ws = new WebSocket(url);
  ws.on('open', () => {
    ws.send(
      JSON.stringify({ op: 'subscribe', id: i, channels: ['orderbook', 'best_quote', 'trades'], event_ids: eventIds }),
    );
    if (++open === clients) process.send?.({ ready: true });
  });
  ws.on('message', (data: Buffer) => {
    frames++;
    bytes += data.length;
    JSON.parse(data.toString());
  });
}
setInterval(() => process.send?.({ frames, bytes, cpuMicros: process.cpuUsage().user + process.cpuUsage().system }), 5);
process.on('message', (m) => m === 'stop' && process.exit(0));
