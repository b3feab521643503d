import { Gauge, type Registry } from 'prom-client';
import type { VenueProcess } from '../simulator/process/start-venue-process.ts';

/**
 * The built-in venue's memory on `/metrics`: it runs in a process of its own, which the job's
 * `process_resident_memory_bytes` does not count. Asked of the venue process at each scrape.
 */
export function registerVenueMetrics(registry: Registry, venue: VenueProcess): void {
  new Gauge({
    name: 'tapehouse_venue_memory_bytes',
    help: "The built-in venue process's memory: rss (resident), heap_used (live JS heap)",
    labelNames: ['kind'],
    registers: [registry],
    async collect() {
      const usage = await venue.memory();
      if (!usage) return;
      this.set({ kind: 'rss' }, usage.rss);
      this.set({ kind: 'heap_used' }, usage.heapUsed);
    },
  });
}
