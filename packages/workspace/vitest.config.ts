import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // Generous: CI runs every package's tests at once on 2 cores, and these make git repositories and start git and
    // Node processes. Hangs still fail; speed lives in the benchmark.
    testTimeout: 120_000,
    hookTimeout: 120_000,
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
  },
});
