import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // Generous: CI runs every package's tests at once on 2 cores, and these start PostgreSQL servers and Node
    // processes (a run killed and resumed takes two). Hangs still fail; speed lives in benchmarks.
    testTimeout: 120_000,
    hookTimeout: 120_000,
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
  },
});
