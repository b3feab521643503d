import { defineConfig } from 'vitest/config';

// Browser tests: need Debian's chromium (/usr/bin/chromium, or TAPEHOUSE_CHROMIUM); run with npm run test:browser.
export default defineConfig({
  test: {
    include: ['test/browser/**/*.spec.ts'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: 'forks',
  },
});
