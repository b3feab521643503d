import { defineConfig } from 'vitest/config';

// Suites against real Kafka and a real Temporal server, started by `scripts/services.sh up`.
export default defineConfig({
  test: {
    include: ['test/integration/**/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 180_000,
    pool: 'forks',
    fileParallelism: false,
  },
});
