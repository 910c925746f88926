/**
 * The AI SDK backend of `run`, `resume` and `serve`: the preflight of the pipeline's LLM stages, then the backend
 * with the environment's provider keys. Loads `@attractor/backend-ai-sdk` (and the AI SDK) only when called.
 */
import type { LlmStageProblem, McpServerConfig, PriceTable } from '@attractor/backend-ai-sdk';
import type { CodergenBackend } from '@attractor/engine';
import type { Graph, HandlerTraits } from '@attractor/graph';
import type { ResolvedBackend } from './backend-choice.js';

/** The backend and the secrets to scrub, or the problems that keep the pipeline from starting. */
export type AiBackendResult =
  | { readonly ok: true; readonly backend: CodergenBackend; readonly secretValues: readonly string[] }
  | { readonly ok: false; readonly problems: readonly LlmStageProblem[] };

/**
 * Checks the LLM stages of `graph` against `env` (`checkLlmStages`) and, when every one can run, creates the
 * backend. The AI SDK's own warning printing is turned off: the backend reports warnings as `stage.log` events.
 */
export async function createAiBackend(options: {
  readonly backend: Extract<ResolvedBackend, { kind: 'ai-sdk' }>;
  readonly graph: Graph;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly prices?: PriceTable;
  /** Check only these stages (those a `--backend` run routes to `api`). Default: every LLM stage. */
  readonly stages?: ReadonlySet<string>;
  /** What the run's handlers declare, by type (`registry.lintInfo()`): which nodes call the model. */
  readonly handlers?: ReadonlyMap<string, HandlerTraits>;
  /** MCP servers by name (`mcpServers` of `attractor.config.*`) for stages' `mcp_servers`. Default: none. */
  readonly mcpServers?: ReadonlyMap<string, McpServerConfig>;
}): Promise<AiBackendResult> {
  const backendPackage = await import('@attractor/backend-ai-sdk');
  globalThis.AI_SDK_LOG_WARNINGS = false;
  const { backend, env } = options;
  const defaults = {
    ...(backend.baseURL === undefined ? {} : { baseURL: backend.baseURL }),
    ...(backend.model === undefined ? {} : { defaultModel: backend.model }),
    ...(backend.provider === undefined ? {} : { defaultProvider: backend.provider }),
  };
  const check = backendPackage.checkLlmStages({
    graph: options.graph,
    env,
    ...defaults,
    ...(options.stages === undefined ? {} : { only: options.stages }),
    ...(options.handlers === undefined ? {} : { handlers: options.handlers }),
  });
  if (check.problems.length > 0) return { ok: false, problems: check.problems };
  const mcpServers = Object.fromEntries(options.mcpServers ?? []);
  // The values of MCP servers' env and headers are masked like the provider keys, in events and files.
  const secretValues = [...(await providerKeys(env)), ...backendPackage.mcpSecretValues(mcpServers)];
  return {
    ok: true,
    backend: backendPackage.createAiSdkBackend({
      env,
      ...defaults,
      ...(options.prices === undefined ? {} : { prices: options.prices }),
      mcpServers,
    }),
    secretValues,
  };
}

/** The provider keys set in `env` (OpenAI, Anthropic, Google), to scrub from events and logs. */
export async function providerKeys(env: Readonly<Record<string, string | undefined>>): Promise<string[]> {
  const { providerSettingsFromEnv } = await import('@attractor/backend-ai-sdk');
  return (['openai', 'anthropic', 'google'] as const)
    .map((name) => providerSettingsFromEnv(name, env).apiKey)
    .filter((key): key is string => key !== undefined);
}
