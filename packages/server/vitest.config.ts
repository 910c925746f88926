import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // The API tests start real servers and pipelines; the browser test drives Chromium. Allow for a loaded CI box.
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
