#!/usr/bin/env node
import { processIo } from './cli-io.js';
import { detectColorSupport } from './colors.js';
import { main } from './main.js';

// Ctrl-C while no run is in progress (loading, printing the summary): exit with 130 rather than die by the signal.
// While a run is in progress, its own handler (install-interrupt-handlers.ts) is also listening and takes over.
const exitOnInterrupt = (): void => {
  if (process.listenerCount('SIGINT') === 1) process.exit(130);
};
process.on('SIGINT', exitOnInterrupt);

main({ argv: process.argv.slice(2), io: processIo(detectColorSupport()) }).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    // Not a user error: a bug or an infrastructure fault (disk full, permissions). Show everything.
    process.stderr.write(
      `attractor: unexpected error\n${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exitCode = 1;
  },
);
