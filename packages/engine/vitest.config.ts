import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // Generous: CI runs every package's tests at once on 2 cores. Hangs still fail; speed lives in benchmarks.
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // expect.poll waits on a condition; a loaded machine can take seconds (vitest's default is 1 s).
    expect: { poll: { timeout: 20_000 } },
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
  },
});
