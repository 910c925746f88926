/**
 * The process surroundings of one CLI invocation, injected so that commands can be run in-process by tests.
 */
import type { Readable } from 'node:stream';

/** A writable text stream (stdout or stderr). */
export interface TextOutput {
  write(text: string): unknown;
  /** True when the stream is a terminal. */
  readonly isTTY?: boolean;
  /** Terminal width in characters, when a terminal. */
  readonly columns?: number;
}

/** Streams, environment and working directory of the CLI. */
export interface CliIo {
  readonly stdout: TextOutput;
  readonly stderr: TextOutput;
  /** Where the console interviewer reads answers. */
  readonly stdin: Readable & { readonly isTTY?: boolean };
  /** The environment (the only place the CLI reads `OPENAI_API_KEY`, `OPENAI_BASE_URL`, `NO_COLOR`, ...). */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The directory relative paths are resolved against. */
  readonly cwd: string;
  /** Whether to colour output (picocolors rules: NO_COLOR, FORCE_COLOR, TTY). */
  readonly color: boolean;
  /**
   * Secret values masked in everything a run writes, streams or sends to a model (set by `main` from the
   * environment and `--secret`; see mask-output.ts). Default: none.
   */
  readonly secretValues?: readonly string[];
}

/** The {@link CliIo} of the current process. */
export function processIo(color: boolean): CliIo {
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
    env: process.env,
    cwd: process.cwd(),
    color,
  };
}
