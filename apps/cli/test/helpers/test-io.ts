import { Readable } from 'node:stream';
import type { CliIo } from '../../src/cli-io.js';

/** A {@link CliIo} that records what the CLI writes, for in-process tests. */
export interface RecordingIo extends CliIo {
  output(): string;
  errors(): string;
}

/** Creates a non-terminal, colourless {@link RecordingIo} rooted at `cwd`. */
export function createTestIo(options: {
  readonly cwd: string;
  readonly env?: Readonly<Record<string, string>>;
}): RecordingIo {
  let stdout = '';
  let stderr = '';
  return {
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
    stdin: Readable.from([]),
    env: options.env ?? {},
    cwd: options.cwd,
    color: false,
    output: () => stdout,
    errors: () => stderr,
  };
}
