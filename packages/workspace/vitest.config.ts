import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // Generous: CI runs every package's tests at once on 2 cores, and these make git repositories and start git and
    // Node processes. Hangs still fail; speed lives in the benchmark.
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // expect.poll waits on a condition; a loaded machine can take seconds (vitest's default is 1 s).
    expect: { poll: { timeout: 60_000 } },
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
  },
});
