import { defineConfig } from 'vitest/config';

// The short fault suite (`npm run test:faults`): the whole pipeline as processes under combined
// faults; the Kafka/Temporal half needs `scripts/services.sh up`. One file, modes in turn.
export default defineConfig({
  test: {
    include: ['test/faults/**/*.test.ts'],
    testTimeout: 600_000,
    hookTimeout: 180_000,
    pool: 'forks',
    fileParallelism: false,
  },
});
