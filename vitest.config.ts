import { defineConfig } from 'vitest/config';

// Unit and simulator-backed tests: nothing but Node needed.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['test/integration/**', 'test/faults/**', 'test/conformance/**', 'node_modules/**'],
    // Two forks on two cores: most of the slow files wait on processes they spawned (a `tapehouse
    // run`, a venue), so two at once took 383 s against 632 s for vitest's default of cores − 1
    // (here one). The limits are a hung test's safety net, not a speed bound: the longest test
    // (a loader killed at 20 random warehouse calls) takes 23 s alone and passed 30 s once next to another file.
    maxWorkers: 2,
    testTimeout: 90_000,
    hookTimeout: 120_000,
    pool: 'forks',
  },
});
