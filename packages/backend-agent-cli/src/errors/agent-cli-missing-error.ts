import { AttractorError, isErrorOf } from '@attractor/errors';
import type { AgentName } from '../agent-name.js';

/** Fields of {@link AgentCliMissingError}. */
export interface AgentCliMissingErrorOptions {
  readonly agent: AgentName;
  /** The npm package to install. */
  readonly packageName: string;
  readonly cause?: unknown;
}

/**
 * An agent's CLI (or SDK) is not installed where the backend looks for it. Not retryable: install the package
 * the message names, or pass `executablePath`.
 */
export class AgentCliMissingError extends AttractorError<'AGENT_CLI_MISSING'> {
  override readonly name = 'AgentCliMissingError';
  readonly retryable = false;
  readonly agent: AgentName;
  readonly packageName: string;

  constructor(options: AgentCliMissingErrorOptions) {
    super({
      code: 'AGENT_CLI_MISSING',
      message: `The ${options.agent} backend needs ${options.packageName}, which is not installed. Install it next to Attractor (npm install ${options.packageName}) or pass the agent's executable (executablePath).`,
      cause: options.cause,
    });
    this.agent = options.agent;
    this.packageName = options.packageName;
  }

  /** True for a `AgentCliMissingError` from any copy of this package (checks its marker, never `instanceof`). */
  static override readonly isInstance = isErrorOf(AgentCliMissingError);
}
