import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // The API tests start real servers and pipelines; the browser test drives Chromium. Generous limits: tests wait on
    // conditions, and a loaded CI box (CI's stress pass runs these beside two CPU-burning processes) is slow.
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // The browser tests poll the page; a loaded machine can take seconds to render (vitest's default is 1 s).
    expect: { poll: { timeout: 60_000 } },
  },
});
