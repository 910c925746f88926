import { defineConfig } from 'vitest/config';

/** The web-UI benchmark: scenario timings, not micro-benchmarks, so it runs as one long test file. */
export default defineConfig({
  test: {
    include: ['bench/*.bench.ts'],
    root: new URL('..', import.meta.url).pathname,
    testTimeout: 600_000,
    fileParallelism: false,
  },
});
