import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // Generous: CI runs every package's tests at once on 2 cores, and each file starts a PostgreSQL server and
    // pg-boss. Hangs still fail; speed lives in benchmarks.
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // expect.poll waits on a condition; a loaded machine can take seconds (vitest's default is 1 s).
    expect: { poll: { timeout: 30_000 } },
    // One PostgreSQL server at a time: three starting together on a loaded machine took over 30 s.
    fileParallelism: false,
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
  },
});
