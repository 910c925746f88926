#!/usr/bin/env node
import { processIo } from './cli-io.js';
import { detectColorSupport } from './colors.js';
import { main } from './main.js';

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
