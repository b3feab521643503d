import { defineConfig } from 'vitest/config';

// Unit and simulator-backed tests: nothing but Node needed.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['test/integration/**', 'test/faults/**', 'test/conformance/**', 'node_modules/**'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});
