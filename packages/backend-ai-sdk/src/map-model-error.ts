/**
 * Maps provider failures onto the engine's retry rules (spec Appendix D, CONTRIBUTING.md "Errors"): the AI
 * SDK's `APICallError.isRetryable` becomes {@link ModelCallError.retryable}, and the message says what to
 * fix.
 */
import { APICallError, RetryError } from 'ai';
import { BUILT_IN_PROVIDERS } from './built-in-providers.js';
import { ModelCallError } from './errors/model-call-error.js';
import type { ProviderTarget } from './resolve-model.js';

/** Where a model call went, for messages. */
export interface ModelCallTarget extends ProviderTarget {
  readonly modelId: string;
}

function serverMessage(error: APICallError): string {
  const data = error.data;
  if (typeof data === 'object' && data !== null && 'error' in data) {
    const inner = (data as { error?: { message?: unknown } }).error;
    if (typeof inner?.message === 'string') return inner.message;
  }
  return error.message;
}

/**
 * Converts an error thrown by `streamText` / `generateText` (after the backend's own transient retries) into a {@link ModelCallError}, or returns undefined for errors that
 * are not provider failures (aborts, tool bugs), which the caller rethrows unchanged.
 */
export function toModelCallError(error: unknown, target: ModelCallTarget): ModelCallError | undefined {
  const cause = RetryError.isInstance(error) ? error.lastError : error;
  if (!APICallError.isInstance(cause)) return undefined;
  const where = `${target.provider} model "${target.modelId}"${target.baseURL === undefined ? '' : ` at ${target.baseURL}`}`;
  const detail = serverMessage(cause);
  const status = cause.statusCode;
  const base = { provider: target.provider, modelId: target.modelId, cause };
  const withStatus = status === undefined ? base : { ...base, statusCode: status };
  const info = target.builtIn === undefined ? undefined : BUILT_IN_PROVIDERS[target.builtIn];
  if (status === undefined) {
    const urlSetting =
      info === undefined
        ? `the base URL of the provider passed in \`providers.${target.provider}\``
        : target.builtIn === 'openai'
          ? 'the base URL (--base-url / OPENAI_BASE_URL)'
          : `the base URL (${info.baseUrlVariable})`;
    return new ModelCallError({
      ...withStatus,
      failure: 'network',
      retryable: true,
      message: `Could not reach ${where}: ${detail}. Check that the server is running and ${urlSetting} is right.`,
    });
  }
  if (status === 401) {
    const variables = info?.keyVariables.join(' or ');
    const fix =
      info === undefined
        ? `Check the API key of the provider instance passed in \`providers.${target.provider}\`.`
        : target.builtIn === 'openai'
          ? 'Check OPENAI_API_KEY (or the `apiKey` option of createAiSdkBackend). For an OpenAI-compatible server, also pass its URL with --base-url (or OPENAI_BASE_URL) and the key it expects.'
          : `Check ${variables}: it must hold a valid ${target.provider} API key.`;
    return new ModelCallError({
      ...withStatus,
      failure: 'authentication',
      retryable: false,
      message: `Authentication failed (HTTP 401) calling ${where}: ${detail}. ${fix}`,
    });
  }
  if (status === 403) {
    return new ModelCallError({
      ...withStatus,
      failure: 'permission',
      retryable: false,
      message: `Permission denied (HTTP 403) calling ${where}: ${detail}. Use an API key${info === undefined ? '' : ` (${info.keyVariables.join(' or ')})`} with access to this model, or choose another model (llm_model in the graph, --model on the CLI).`,
    });
  }
  if (status === 404) {
    return new ModelCallError({
      ...withStatus,
      failure: 'not_found',
      retryable: false,
      message: `Not found (HTTP 404) calling ${where}: ${detail}. Check the model name (llm_model / --model) and the base URL (--base-url).`,
    });
  }
  if (status === 408) {
    return new ModelCallError({
      ...withStatus,
      failure: 'timeout',
      retryable: true,
      message: `The request to ${where} timed out (HTTP 408): ${detail}.`,
    });
  }
  if (status === 429) {
    return new ModelCallError({
      ...withStatus,
      failure: 'rate_limited',
      retryable: true,
      message: `Rate limited (HTTP 429) by ${where}: ${detail}.`,
    });
  }
  if (status === 529) {
    return new ModelCallError({
      ...withStatus,
      failure: 'server_error',
      retryable: true,
      message: `${target.provider} is overloaded (HTTP 529) for ${where}: ${detail}.`,
    });
  }
  if (status >= 500) {
    return new ModelCallError({
      ...withStatus,
      failure: 'server_error',
      retryable: true,
      message: `Server error (HTTP ${status}) from ${where}: ${detail}.`,
    });
  }
  if (status === 400 || status === 422) {
    return new ModelCallError({
      ...withStatus,
      failure: 'bad_request',
      retryable: false,
      message: `The provider rejected the request (HTTP ${status}) to ${where}: ${detail}. Check the node's llm_model and reasoning_effort, and that the model supports tool calls (or set tools="none" on the node).`,
    });
  }
  return new ModelCallError({
    ...withStatus,
    failure: 'other',
    retryable: cause.isRetryable,
    message: `HTTP ${status} from ${where}: ${detail}.`,
  });
}
