import { AttractorError, isErrorOf } from '@attractor/errors';

/** Which setting is wrong. */
export type BackendConfigurationSetting =
  /** No model: the node names none and the backend has no `defaultModel`. */
  | 'model'
  /** The model's provider has no instance in `providers`. */
  | 'provider'
  /** The node's `tools` attribute names a tool that does not exist. */
  | 'tools'
  /** The node's `mcp_servers` names a server the backend has no definition of, or a server failed to start. */
  | 'mcp_servers';

/**
 * A stage cannot run because of configuration: no model, a provider without an instance, a bad `tools`
 * attribute, or an MCP server of `mcp_servers` that is not defined or does not start. Not retryable (spec Appendix D: terminal); the message says what to change.
 */
export class BackendConfigurationError extends AttractorError<'BACKEND_CONFIGURATION'> {
  override readonly name = 'BackendConfigurationError';
  readonly setting: BackendConfigurationSetting;
  /** The node whose stage failed. */
  readonly nodeId: string;
  readonly retryable = false;

  constructor(options: { setting: BackendConfigurationSetting; nodeId: string; message: string }) {
    super({ code: 'BACKEND_CONFIGURATION', message: options.message });
    this.setting = options.setting;
    this.nodeId = options.nodeId;
  }

  /** True for a `BackendConfigurationError` from any copy of this package (checks its marker, never `instanceof`). */
  static override readonly isInstance = isErrorOf(BackendConfigurationError);
}
