/**
 * The options of `attractor serve`, kept apart from the command so that parsing them loads no server code.
 */
import { InvalidArgumentError } from 'commander';
import type { BackendRouting } from '../run/backend-option.js';

/** The options of `attractor serve`. */
export interface ServeCliOptions {
  /** The plug-in config file (default: `attractor.config.{js,mjs,ts}` in the working directory, if any). */
  readonly config?: string;
  readonly host: string;
  readonly port: number;
  readonly token?: string;
  readonly runsDir?: string;
  /** Shared run store URL (`--store`, else `ATTRACTOR_STORE_URL`): serve its runs, executed by workers. */
  readonly store?: string;
  /** Run queue URL (`--queue`, else `ATTRACTOR_QUEUE_URL`); needed with a store. */
  readonly queue?: string;
  readonly pipelines?: string;
  readonly workdir?: string;
  /** `--workspace`: where runs change files (README "Workspaces"). Default: the config's, `$ATTRACTOR_WORKSPACE`, else `auto`. */
  readonly workspace?: 'git' | 'copy' | 'in-place' | 'auto';
  /** `--workspace-root`: where run worktrees go. */
  readonly workspaceRoot?: string;
  readonly allowTools?: boolean;
  readonly simulate?: boolean;
  readonly model?: string;
  readonly provider?: string;
  readonly baseUrl?: string;
  /** `--backend`: which backend runs each LLM stage of every run. */
  readonly backend?: BackendRouting;
  /** `--agent-permissions`: what agent CLIs may do without asking. */
  readonly agentPermissions?: 'edit' | 'full';
}

/** The name of the environment variable holding the server token. */
export const SERVER_TOKEN_ENV = 'ATTRACTOR_SERVER_TOKEN';

/** Parses `--port`: a whole number from 0 (any free port) to 65535. */
export function parsePort(text: string): number {
  const port = Number(text);
  if (!/^\d+$/.test(text.trim()) || port > 65535) {
    throw new InvalidArgumentError(`expected a port number from 0 to 65535, got "${text}".`);
  }
  return port;
}
