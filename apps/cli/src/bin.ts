#!/usr/bin/env node
import { interruptClaimed } from './claim-interrupt.js';
import { processIo } from './cli-io.js';
import { detectColorSupport } from './colors.js';
import { ignoreBrokenPipe } from './ignore-broken-pipe.js';
import { main } from './main.js';

// Ctrl-C while no command handles it (loading, printing the summary): exit with 130 rather than die by the signal.
// While a run is in progress, its own handler (install-interrupt-handlers.ts) takes over; so do `serve` and `worker`.
// Other listeners (signal-exit, loaded by the run lock's library) must not silence it: only a claimed one does.
const exitOnInterrupt = (): void => {
  if (!interruptClaimed('SIGINT')) process.exit(130);
};
process.on('SIGINT', exitOnInterrupt);

// `attractor ... | head -1`: the reader leaving must neither print a stack trace nor stop a run (every command).
ignoreBrokenPipe(process.stdout);
ignoreBrokenPipe(process.stderr);

main({ argv: process.argv.slice(2), io: processIo(detectColorSupport()) }).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    // Not a user error: a bug or an infrastructure fault (disk full, permissions). Show everything. The command runs
    // from a bundle (scripts/bundle-cli.mjs); its source maps turn the stack into TypeScript locations when enabled.
    const sourceMapsHint = process.sourceMapsEnabled
      ? ''
      : '(for TypeScript source locations in the stack, run again with NODE_OPTIONS=--enable-source-maps)\n';
    process.stderr.write(
      `attractor: unexpected error\n${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n${sourceMapsHint}`,
    );
    process.exitCode = 1;
  },
);
