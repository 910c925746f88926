import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The corpus and CLI tests start real child processes; the machine is shared.
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
