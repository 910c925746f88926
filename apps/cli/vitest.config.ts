import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // End-to-end tests start the built binary and run real tool commands.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // expect.poll waits on a condition; a loaded machine can take seconds (vitest's default is 1 s).
    expect: { poll: { timeout: 30_000 } },
  },
});
