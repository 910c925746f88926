/** Runs the built `attractor` binary in a child process, as a user would. */
import { execa, type Result } from 'execa';
import { cliBin } from './paths.js';

/** Options of {@link runCli}. */
export interface RunCliOptions {
  /** Working directory of the child. */
  readonly cwd: string;
  /** Extra environment variables; the child never inherits OPENAI_* from the test runner. */
  readonly env?: Readonly<Record<string, string>>;
  /** Kill the child after this many milliseconds. Default: 60000. */
  readonly timeoutMs?: number;
}

/** Runs `node apps/cli/bin/attractor.js ...args` and resolves with its exit code and output (never rejects on exit code). */
export async function runCli(args: readonly string[], options: RunCliOptions): Promise<Result> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && !key.startsWith('OPENAI_')) env[key] = value;
  }
  return execa(process.execPath, [cliBin, ...args], {
    cwd: options.cwd,
    env: { ...env, NO_COLOR: '1', ...options.env },
    extendEnv: false,
    reject: false,
    stdin: 'ignore',
    timeout: options.timeoutMs ?? 60_000,
  });
}
