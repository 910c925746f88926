/**
 * `--sandbox` (and `defaults.sandbox` of the config file): which sandbox confines the commands of tool and agent
 * stages (README "Security"). Checked before anything runs: a sandbox that cannot work here is refused, never
 * dropped silently.
 */
import {
  type CommandSandbox,
  checkBubblewrap,
  createBubblewrapSandbox,
  SandboxUnavailableError,
} from '@attractor/engine';
import { CliError } from '../errors/cli-error.js';

/** The values of `--sandbox`: `bwrap` (Bubblewrap) or `none`. */
export const SANDBOX_KINDS = ['bwrap', 'none'] as const;

/** One of {@link SANDBOX_KINDS}. */
export type SandboxKind = (typeof SANDBOX_KINDS)[number];

/** Whether `value` is one of {@link SANDBOX_KINDS}. */
export function isSandboxKind(value: string): value is SandboxKind {
  return (SANDBOX_KINDS as readonly string[]).includes(value);
}

/**
 * The sandbox for `kind` (`--sandbox`, else the config file's `defaults.sandbox`), checked to work here, or
 * undefined for `none` (the default). `ATTRACTOR_BWRAP` in `env` names the `bwrap` program (default: `bwrap` on
 * `PATH`).
 * @throws {CliError} `CLI_INVALID_INPUT` (exit 2) when Bubblewrap is missing or cannot start a sandbox, saying how to
 *   fix it.
 */
export async function resolveSandbox(options: {
  readonly kind: SandboxKind | undefined;
  readonly env: Readonly<Record<string, string | undefined>>;
}): Promise<CommandSandbox | undefined> {
  if (options.kind === undefined || options.kind === 'none') return undefined;
  const bwrapPath = options.env.ATTRACTOR_BWRAP?.trim() || 'bwrap';
  try {
    await checkBubblewrap({ bwrapPath });
  } catch (error) {
    if (!SandboxUnavailableError.isInstance(error)) throw error;
    throw new CliError({
      code: 'CLI_INVALID_INPUT',
      message: `--sandbox bwrap: ${error.message}`,
      cause: error,
    });
  }
  return createBubblewrapSandbox({ bwrapPath });
}
