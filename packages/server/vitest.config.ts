import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // The API tests start real servers and pipelines; the browser test drives Chromium. Allow for a loaded CI box.
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // The browser tests poll the page; a loaded machine can take seconds to render (vitest's default is 1 s).
    expect: { poll: { timeout: 15_000 } },
  },
});
