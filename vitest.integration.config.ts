import { defineConfig } from 'vitest/config';

// Suites against real Kafka and a real Temporal server, started by `scripts/services.sh up`: one
// file at a time (they share the broker, the server and their restarts). The capture ground-truth
// run needs neither: it runs beside them, in a project of its own (projects without a group order
// run at the same time), which takes its ~50 s off the suite's ~10 minutes.
const standalone = ['test/integration/capture-ground-truth.test.ts'];

export default defineConfig({
  test: {
    testTimeout: 120_000,
    hookTimeout: 180_000,
    pool: 'forks',
    maxWorkers: 2,
    projects: [
      {
        extends: true,
        test: {
          name: 'services',
          include: ['test/integration/**/*.test.ts'],
          exclude: standalone,
          fileParallelism: false,
        },
      },
      { extends: true, test: { name: 'standalone', include: standalone } },
    ],
  },
});
