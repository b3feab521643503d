import { defineConfig } from 'vitest/config';

// The client conformance suite's JS part, run by test/conformance/run.sh against a running
// `tapehouse run` (TAPEHOUSE_CONFORMANCE_URL) after the Go, Java and Python parts.
export default defineConfig({
  test: {
    root: new URL('../..', import.meta.url).pathname,
    include: ['test/conformance/**/*.test.ts'],
    testTimeout: 300_000,
    hookTimeout: 120_000,
    pool: 'forks',
    fileParallelism: false,
  },
});
