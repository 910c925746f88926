import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // End-to-end tests start the built binary and run real tool commands.
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
