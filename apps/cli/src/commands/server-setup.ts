/**
 * What `attractor serve` and `attractor mcp` share: the options of `startServer` / `openServerApp` from the command
 * line, the config file and the environment. The token from `--token` or `ATTRACTOR_SERVER_TOKEN`; each run's LLM
 * backend chosen like `attractor run` does (the config's backends and MCP servers included); the shared run store and
 * queue with `--store`; the workspace provider; the sandbox (`--sandbox`); telemetry (`--otel`, Prometheus metrics).
 */
import { resolve } from 'node:path';
import type { LlmStageProblem } from '@attractor/backend-ai-sdk';
import type { CodergenBackend, WorkspaceProvider } from '@attractor/engine';
import { ApiError, type BackendRequest, type StartServerOptions } from '@attractor/server';
import type { PostgresRunCatalog } from '@attractor/store-postgres';
import type { CliIo } from '../cli-io.js';
import { type CliConfig, lintOptionsOf, loadCliConfig } from '../config/load-cli-config.js';
import { CliError } from '../errors/cli-error.js';
import { type CliTelemetry, startTelemetry } from '../observability/start-telemetry.js';
import { resolveBackend } from '../run/backend-choice.js';
import { createAiBackend } from '../run/create-ai-backend.js';
import { formatPreflight } from '../run/format-preflight.js';
import { readPrices } from '../run/read-prices.js';
import { resolveSandbox } from '../run/resolve-sandbox.js';
import { workspaceModeFromEnv } from '../run/workspace-mode-from-env.js';
import {
  connectQueueOrExplain,
  openRunCatalog,
  requireQueueUrl,
  storeUrlOf,
} from '../shared/shared-locations.js';
import { SERVER_TOKEN_ENV, type ServeCliOptions } from './serve-options.js';
import { remoteLocation } from './worker-workspace.js';

/** The server options both commands read (`serve`'s without where it listens). */
export type ServerSetupCliOptions = Omit<ServeCliOptions, 'host' | 'port'>;

/** A prepared server: the options to start it with, and what to close after it stopped. */
export interface PreparedServer {
  /** The options of `startServer` / `openServerApp`, but `host` and `port`. */
  readonly startOptions: Omit<StartServerOptions, 'host' | 'port'>;
  /** The token given (`--token`, else `ATTRACTOR_SERVER_TOKEN`); undefined: the server makes one. */
  readonly token?: string;
  /** Whether the token came from the environment (then it is never printed). */
  readonly tokenFromEnv: boolean;
  /** The shared store and queue (`--store`), when runs are executed by workers. */
  readonly shared?: NonNullable<StartServerOptions['shared']> & {
    readonly catalog: { readonly location: string };
    readonly queue: { readonly location: string };
  };
  /** The config file's plug-ins and MCP servers. */
  readonly config: CliConfig;
  /** The process's OpenTelemetry SDK and Prometheus metrics (`--otel`; metrics always). */
  readonly observed: CliTelemetry;
  /** Closes the shared store's queue and catalog and flushes the telemetry (after the server closed). */
  close(): Promise<void>;
}

/**
 * The last line of the server's `BACKEND_UNAVAILABLE` message: how to fix what is actually missing. Provider keys
 * missing: restart the server with them set; a stage without a model (and no `--model`): restart with `--model`,
 * send `"model"` with the request, or set `llm_model` in the pipeline; always: or send `"simulate": true`. Pure.
 */
function serveRemedy(problems: readonly LlmStageProblem[]): string {
  const keys = problems.some((problem) => problem.kind === 'no_credentials');
  const model = problems.some((problem) => problem.kind === 'no_model');
  if (!model) {
    return keys
      ? 'Restart `attractor serve` with those variables set, or send "simulate": true.'
      : 'Or send "simulate": true.';
  }
  const restart = [
    ...(keys ? ['those variables set'] : []),
    '--model <model> (and --provider when the model name implies none)',
  ].join(' and ');
  return `Restart \`attractor serve\` with ${restart}, send "model": "<model>" with the request, or set llm_model on the node or in the model_stylesheet; or send "simulate": true.`;
}

/**
 * Reads the config file and the environment and builds the server options. `serving.metrics`: whether the server
 * answers `GET /metrics` (`serve`), which loads the Prometheus exporter; `mcp` serves no such route.
 *
 * @throws {CliError} for a bad config file, or a store or queue that cannot be reached (`--store`, `--queue`).
 */
export async function prepareServer(
  options: ServerSetupCliOptions,
  io: CliIo,
  serving: { readonly metrics: boolean },
): Promise<PreparedServer> {
  const token = nonEmpty(options.token) ?? nonEmpty(io.env[SERVER_TOKEN_ENV]);
  const handlers = await import('@attractor/handlers');
  const config = await loadCliConfig({
    cwd: io.cwd,
    env: io.env,
    ...(options.config === undefined ? {} : { path: options.config }),
  });
  const model = options.model ?? config.defaults.model;
  const provider = options.provider ?? config.defaults.provider;
  const prices =
    config.defaults.prices === undefined
      ? undefined
      : await readPrices(config.defaults.prices, { env: io.env });
  const sandbox = await resolveSandbox({ kind: options.sandbox ?? config.defaults.sandbox, env: io.env });

  // What the config's handlers declare: which stages call the model (the preflight), whatever their type is called.
  const declared = lintOptionsOf(config).handlers;
  const backendFactory = async (request: BackendRequest): Promise<CodergenBackend> => {
    const backend = resolveBackend(
      {
        ...(options.simulate === true || request.simulate ? { simulate: true } : {}),
        ...((request.model ?? model) === undefined ? {} : { model: request.model ?? model }),
        ...((request.provider ?? provider) === undefined ? {} : { provider: request.provider ?? provider }),
        ...(options.baseUrl === undefined ? {} : { baseUrl: options.baseUrl }),
        ...(options.backend === undefined ? {} : { backend: options.backend }),
        ...(options.agentPermissions === undefined ? {} : { agentPermissions: options.agentPermissions }),
      },
      io.env,
      io.cwd,
    );
    if (backend.kind === 'simulate') return handlers.createSimulationBackend();
    // The config file's backend runs the LLM stages unless --backend chose others.
    const plugin =
      options.backend === undefined && config.defaults.backend !== undefined
        ? config.backends.get(config.defaults.backend)
        : undefined;
    if (plugin !== undefined) return plugin;
    if (backend.kind === 'routed') {
      const { createRoutedBackend } = await import('../run/create-routed-backend.js');
      try {
        return await createRoutedBackend({
          choice: backend,
          graph: request.graph,
          env: io.env,
          allowShell: request.allowTools,
          mcpServers: config.mcpServers,
          handlers: declared,
          // A client cannot pass options to the server: it sends "simulate", or the server is restarted.
          closing: (problems) =>
            `${serveRemedy(problems)} Or give them an agent: restart \`attractor serve\` with --backend claude-code, or set a node attribute backend="codex".`,
        });
      } catch (error) {
        if (!CliError.isInstance(error)) throw error;
        throw new ApiError({ status: 400, code: 'BACKEND_UNAVAILABLE', message: error.message });
      }
    }
    const created = await createAiBackend({
      backend,
      graph: request.graph,
      env: io.env,
      ...(prices === undefined ? {} : { prices }),
      mcpServers: config.mcpServers,
      handlers: declared,
    });
    if (!created.ok) {
      throw new ApiError({
        status: 400,
        code: 'BACKEND_UNAVAILABLE',
        message: formatPreflight(created.problems, serveRemedy(created.problems)),
      });
    }
    return created.backend;
  };
  const secretValues = [
    'OPENAI_API_KEY',
    'ANTHROPIC_API_KEY',
    'GOOGLE_GENERATIVE_AI_API_KEY',
    'GEMINI_API_KEY',
  ]
    .map((name) => nonEmpty(io.env[name]))
    .filter((value): value is string => value !== undefined);
  // The values of MCP servers' env and headers are secrets like the provider keys.
  if (config.mcpServers.size > 0) {
    const { mcpSecretValues } = await import('@attractor/backend-ai-sdk');
    secretValues.push(...mcpSecretValues(Object.fromEntries(config.mcpServers)));
  }

  // What the web UI's "Simulate LLM stages" box shows: forced on, needed (no LLM configured), or a free choice.
  // On a shared store the workers run the LLM stages with their own keys: the server's environment does not decide.
  const sharedStore = storeUrlOf(options.store, io) !== undefined;
  const simulation =
    options.simulate === true ? 'always' : sharedStore || llmConfigured() ? 'optional' : 'required';
  // A provider key, an OpenAI-compatible URL, agent CLIs (--backend) or the config file's backend
  // (defaults.backend): some stages can run on a real LLM.
  function llmConfigured(): boolean {
    return (
      secretValues.length > 0 ||
      options.baseUrl !== undefined ||
      nonEmpty(io.env.OPENAI_BASE_URL) !== undefined ||
      options.backend !== undefined ||
      config.defaults.backend !== undefined
    );
  }

  // Prometheus metrics when served (GET /metrics, with the token); spans with --otel or the OTEL_* variables.
  const observed = await startTelemetry({
    cli: options,
    env: io.env,
    prometheus: serving.metrics,
    serviceName: 'attractor-server',
  });

  // A shared run store: runs are enqueued and executed by `attractor worker`s; this server only shows and steers them.
  const storeUrl = storeUrlOf(options.store, io);
  const shared =
    storeUrl === undefined
      ? undefined
      : await (async () => {
          const queueUrl = requireQueueUrl(options.queue, io, '`attractor serve --store`');
          const catalog = await openRunCatalog(storeUrl, io);
          try {
            const queue = await connectQueueOrExplain(queueUrl, io, observed.telemetry?.tracer);
            // PostgreSQL announces appended events (NOTIFY): streams follow them at once and poll slowly besides.
            const notifying = catalog as Partial<Pick<PostgresRunCatalog, 'subscribeEvents'>>;
            return {
              catalog,
              queue,
              // The workers give the runs this workspace (else their own --workspace, else the graph's).
              ...(options.workspace === undefined ? {} : { workspaceMode: options.workspace }),
              ...(notifying.subscribeEvents === undefined
                ? {}
                : { subscribe: notifying.subscribeEvents.bind(catalog), pollMs: 2000 }),
            };
          } catch (error) {
            await catalog.close();
            throw error;
          }
        })().catch(async (error: unknown) => {
          await observed.shutdown();
          throw error;
        });

  // One registry for every run: the built-in handlers keep no state of a run, and the config's handlers are the same
  // objects for every run anyway (a registry per run cost each waiting run ~9 KB). Without plug-ins, the server's own
  // default.
  const registry = config.handlers.size === 0 ? undefined : handlers.createDefaultRegistry();
  for (const [type, handler] of config.handlers) registry?.register(type, handler);

  const startOptions: Omit<StartServerOptions, 'host' | 'port'> = {
    ...(token === undefined ? {} : { token }),
    runsDir: resolve(io.cwd, options.runsDir ?? '.attractor/runs'),
    ...(options.pipelines === undefined ? {} : { pipelinesDir: resolve(io.cwd, options.pipelines) }),
    workdir: resolve(io.cwd, options.workdir ?? '.'),
    // On a shared store it only reads the diffs of the workers' runs (from --workspace-remote or the bundles).
    workspace: await serverWorkspace(options, config, io),
    allowTools: options.allowTools === true,
    backendFactory,
    ...(registry === undefined ? {} : { createRegistry: () => registry }),
    simulation,
    secretValues: [...secretValues, ...(io.secretValues ?? [])],
    ...(shared === undefined ? {} : { shared }),
    ...(sandbox === undefined ? {} : { sandbox }),
    ...(observed.telemetry === undefined ? {} : { telemetry: observed.telemetry }),
    ...(observed.metrics === undefined ? {} : { metrics: observed.metrics }),
  };
  return {
    startOptions,
    config,
    observed,
    ...(token === undefined ? {} : { token }),
    tokenFromEnv: nonEmpty(options.token) === undefined && token !== undefined,
    ...(shared === undefined ? {} : { shared }),
    async close() {
      await shared?.queue.close();
      await shared?.catalog.close();
      await observed.shutdown();
    },
  };
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

/**
 * The workspace provider of the server's runs (README "Workspaces"): `--workspace` over the graph's `workspace`
 * attribute over the config's `defaults.workspace` over `$ATTRACTOR_WORKSPACE`, else `auto`.
 */
async function serverWorkspace(
  options: ServerSetupCliOptions,
  config: CliConfig,
  io: CliIo,
): Promise<WorkspaceProvider> {
  const { createWorkspaceProvider } = await import('@attractor/workspace');
  const defaultMode = config.defaults.workspace ?? workspaceModeFromEnv(io.env);
  const root = options.workspaceRoot ?? config.defaults.workspaceRoot;
  return createWorkspaceProvider({
    ...(options.workspace === undefined ? {} : { mode: options.workspace }),
    ...(defaultMode === undefined ? {} : { defaultMode }),
    ...(root === undefined ? {} : { root: resolve(io.cwd, root) }),
    ...(options.workspaceRemote === undefined
      ? {}
      : { remote: remoteLocation(options.workspaceRemote, io.cwd) }),
  });
}
