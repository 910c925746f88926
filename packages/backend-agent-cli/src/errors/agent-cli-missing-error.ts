import type { AgentName } from '../agent-name.js';

const MARKER = Symbol.for('attractor.error.AgentCliMissingError');

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
export class AgentCliMissingError extends Error {
  override readonly name = 'AgentCliMissingError';
  readonly code = 'AGENT_CLI_MISSING';
  readonly retryable = false;
  readonly agent: AgentName;
  readonly packageName: string;
  readonly [MARKER] = true;

  constructor(options: AgentCliMissingErrorOptions) {
    super(
      `The ${options.agent} backend needs ${options.packageName}, which is not installed. Install it next to Attractor (npm install ${options.packageName}) or pass the agent's executable (executablePath).`,
      options.cause === undefined ? undefined : { cause: options.cause },
    );
    this.agent = options.agent;
    this.packageName = options.packageName;
  }

  /** Whether `error` is an AgentCliMissingError (also across copies of this package). */
  static isInstance(error: unknown): error is AgentCliMissingError {
    return typeof error === 'object' && error !== null && (error as Record<symbol, unknown>)[MARKER] === true;
  }
}
