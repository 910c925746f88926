/**
 * The backend of a run started with `--backend`: each LLM stage goes to the AI SDK backend (`api`) or to a
 * coding-agent CLI (Claude Code, Codex, Gemini CLI), chosen per stage by its `backend` attribute, its provider's
 * mapping or the default (docs/architecture.md "Agent-CLI backends"). Checks before the run starts that every
 * backend the pipeline's stages will use is available.
 */

import type { LlmStageProblem, McpServerConfig, PriceTable } from '@attractor/backend-ai-sdk';
import type { CodergenBackend } from '@attractor/engine';
import { type Graph, type GraphNode, type HandlerTraits, handlerTraits } from '@attractor/graph';
import { CliError } from '../errors/cli-error.js';
import type { ResolvedBackend } from './backend-choice.js';
import { type BackendName, backendForNode } from './backend-option.js';
import { createAiBackend } from './create-ai-backend.js';
import { formatPreflight } from './format-preflight.js';

/** The `routed` kind of {@link ResolvedBackend}. */
export type RoutedBackendChoice = Extract<ResolvedBackend, { kind: 'routed' }>;

/** Options of {@link createRoutedBackend}. */
export interface CreateRoutedBackendOptions {
  readonly choice: RoutedBackendChoice;
  readonly graph: Graph;
  /** The environment of the agents (they keep their own logins under HOME) and of the API backend's tools. */
  readonly env: Readonly<Record<string, string | undefined>>;
  /**
   * False where shell commands are not allowed (`attractor serve` without `--allow-tools`): stages on Codex (whose
   * `edit` mode still runs sandboxed commands) and `--agent-permissions full` are refused. Default: true.
   */
  readonly allowShell?: boolean;
  /** Model prices for the `api` backend (`--prices`), over the defaults. */
  readonly prices?: PriceTable;
  /** MCP servers by name for the `api` backend's stages (`mcp_servers`). Default: none. */
  readonly mcpServers?: ReadonlyMap<string, McpServerConfig>;
  /**
   * The last line of the refusal when stages on `api` cannot run (no key, no model): how to fix it where the run was
   * started. Default: {@link RUN_ROUTED_CLOSING}, the words of `run` and `resume` (command-line options); `serve`
   * passes its own (a client cannot pass options to the server).
   */
  readonly closing?: (problems: readonly LlmStageProblem[]) => string;
  /**
   * What the run's handlers declare, by type (`registry.lintInfo()`): a stage goes to a backend when its handler
   * declares `callsModel` or `joinsBranches` (a fan-in with a prompt asks the backend), whatever its type is called.
   * Default: the spec's built-in handlers.
   */
  readonly handlers?: ReadonlyMap<string, HandlerTraits>;
}

/** The default {@link CreateRoutedBackendOptions.closing}: what `run`, `resume` and `fork` say. */
export const RUN_ROUTED_CLOSING =
  'Or give them an agent: --backend claude-code (or a node attribute backend="codex"), or pass --simulate.';

/**
 * Creates the routing backend. Backends are created when a stage first needs them.
 *
 * @throws {CliError} `CLI_BACKEND_MISSING` naming the npm package to install when an agent CLI a stage needs is
 *   not installed; `CLI_MISSING_API_KEY` listing the stages on `api` whose provider has no key or that name no model.
 */
export async function createRoutedBackend(options: CreateRoutedBackendOptions): Promise<CodergenBackend> {
  const { choice, graph, env } = options;
  const aiSdk = await import('@attractor/backend-ai-sdk');
  const agentCli = await import('@attractor/backend-agent-cli');
  const choose = (node: GraphNode): BackendName =>
    backendForNode(
      node,
      choice.routing,
      node.llmModel === undefined ? undefined : aiSdk.inferProvider(node.llmModel),
    );

  const stagesByBackend = new Map<BackendName, string[]>();
  for (const node of graph.nodes.values()) {
    const traits = handlerTraits(graph, node, options.handlers);
    if (traits.callsModel !== true && traits.joinsBranches !== true) continue;
    const name = choose(node);
    stagesByBackend.set(name, [...(stagesByBackend.get(name) ?? []), node.id]);
  }
  const missing: string[] = [];
  for (const name of stagesByBackend.keys()) {
    if (name === 'api') continue;
    try {
      agentCli.findAgentCli(name, { env });
    } catch (error) {
      if (!agentCli.AgentCliMissingError.isInstance(error)) throw error;
      missing.push(
        `The ${name} backend (stages ${stagesByBackend.get(name)?.join(', ')}) needs ${error.packageName}, which is not installed: run \`npm install ${error.packageName}\` where Attractor is installed${name === 'claude-code' ? '' : `, or put \`${name === 'codex' ? 'codex' : 'gemini'}\` on PATH`}.`,
      );
    }
  }
  if (missing.length > 0) {
    throw new CliError({
      code: 'CLI_BACKEND_MISSING',
      message: `${missing.join('\n')} The pipeline was not started.`,
    });
  }
  if (options.allowShell === false) {
    const shellStages =
      choice.agentPermissions === 'full'
        ? [...stagesByBackend.entries()].filter(([name]) => name !== 'api').flatMap(([, ids]) => ids)
        : (stagesByBackend.get('codex') ?? []);
    if (shellStages.length > 0) {
      throw new CliError({
        code: 'CLI_INVALID_INPUT',
        message: `Stages ${shellStages.join(', ')} would run on an agent that can run shell commands (${choice.agentPermissions === 'full' ? '--agent-permissions full' : 'codex'}), which this server does not allow. Restart it with --allow-tools, or use claude-code or gemini-cli with --agent-permissions edit.`,
      });
    }
  }
  const apiStages = stagesByBackend.get('api');
  let apiBackend: CodergenBackend | undefined;
  if (apiStages !== undefined) {
    // The stages on `api` need their providers' keys (or a model), checked like a run without --backend.
    const created = await createAiBackend({
      backend: choice.api,
      graph,
      env,
      stages: new Set(apiStages),
      ...(options.handlers === undefined ? {} : { handlers: options.handlers }),
      ...(options.prices === undefined ? {} : { prices: options.prices }),
      ...(options.mcpServers === undefined ? {} : { mcpServers: options.mcpServers }),
    });
    if (!created.ok) {
      throw new CliError({
        code: 'CLI_MISSING_API_KEY',
        message: formatPreflight(created.problems, options.closing?.(created.problems) ?? RUN_ROUTED_CLOSING),
      });
    }
    apiBackend = created.backend;
  }

  const instances = new Map<BackendName, CodergenBackend>();
  const create = (name: BackendName): CodergenBackend => {
    const agentOptions = {
      env,
      permissions: choice.agentPermissions,
      ...(choice.model === undefined ? {} : { defaultModel: choice.model }),
    };
    switch (name) {
      case 'claude-code':
        return agentCli.createClaudeCodeBackend(agentOptions);
      case 'codex':
        return agentCli.createCodexBackend(agentOptions);
      case 'gemini-cli':
        return agentCli.createGeminiCliBackend(agentOptions);
      case 'api': {
        // Created above for the stages the graph routes to `api`; a stage routed there at run time alone (a
        // sub-pipeline's) gets one without the preflight, and fails with the provider's message if it lacks a key.
        apiBackend ??= aiSdk.createAiSdkBackend({
          env,
          ...(choice.api.baseURL === undefined ? {} : { baseURL: choice.api.baseURL }),
          ...(choice.api.model === undefined ? {} : { defaultModel: choice.api.model }),
          ...(choice.api.provider === undefined ? {} : { defaultProvider: choice.api.provider }),
          ...(options.prices === undefined ? {} : { prices: options.prices }),
          mcpServers: Object.fromEntries(options.mcpServers ?? []),
        });
        return apiBackend;
      }
    }
  };
  return {
    run(request) {
      const name = choose(request.node);
      let backend = instances.get(name);
      if (backend === undefined) {
        backend = create(name);
        instances.set(name, backend);
      }
      return backend.run(request);
    },
    // The backends release what they hold for the run (the API backend's MCP servers).
    async endRun(run) {
      for (const backend of new Set([
        ...instances.values(),
        ...(apiBackend === undefined ? [] : [apiBackend]),
      ]))
        await backend.endRun?.(run).catch(() => undefined);
    },
  };
}
