/**
 * `attractor serve`: the HTTP server mode of spec §9.5 (`@attractor/server`). Thin wiring: reads the token from
 * `--token` or `ATTRACTOR_SERVER_TOKEN`, chooses each run's LLM backend like `attractor run` does, starts the server,
 * prints its URL and token, and stops it cleanly on Ctrl-C / SIGTERM (running pipelines keep their checkpoints).
 */
import { resolve } from 'node:path';
import type { LlmStageProblem } from '@attractor/backend-ai-sdk';
import type { CodergenBackend, WorkspaceProvider } from '@attractor/engine';
import { ApiError, type BackendRequest, startServer } from '@attractor/server';
import type { PostgresRunCatalog } from '@attractor/store-postgres';
import type { CliIo } from '../cli-io.js';
import { createColors } from '../colors.js';
import { type CliConfig, loadCliConfig } from '../config/load-cli-config.js';
import { CliError } from '../errors/cli-error.js';
import { resolveBackend } from '../run/backend-choice.js';
import { createAiBackend } from '../run/create-ai-backend.js';
import { readPrices } from '../run/create-run-services.js';
import { formatPreflight } from '../run/format-preflight.js';
import { workspaceModeFromEnv } from '../run/workspace-mode-from-env.js';
import {
  connectQueueOrExplain,
  openRunCatalog,
  requireQueueUrl,
  storeUrlOf,
} from '../shared/shared-locations.js';
import { SERVER_TOKEN_ENV, type ServeCliOptions } from './serve-options.js';

/** Options of {@link serveCommand}. */
export interface ServeCommandOptions {
  readonly options: ServeCliOptions;
  readonly io: CliIo;
  /** Stops the server when aborted. Default: SIGINT / SIGTERM of this process. */
  readonly stopSignal?: AbortSignal;
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

/** Runs the server until stopped; resolves with the exit code (0). */
export async function serveCommand(command: ServeCommandOptions): Promise<number> {
  const { options, io } = command;
  const colors = createColors(io.color);
  const token = nonEmpty(options.token) ?? nonEmpty(io.env[SERVER_TOKEN_ENV]);
  const handlers = await import('@attractor/handlers');
  const config = await loadCliConfig({
    cwd: io.cwd,
    ...(options.config === undefined ? {} : { path: options.config }),
  });
  const model = options.model ?? config.defaults.model;
  const provider = options.provider ?? config.defaults.provider;
  const prices = config.defaults.prices === undefined ? undefined : await readPrices(config.defaults.prices);

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

  // A shared run store: runs are enqueued and executed by `attractor worker`s; this server only shows and steers them.
  const storeUrl = storeUrlOf(options.store, io);
  const shared =
    storeUrl === undefined
      ? undefined
      : await (async () => {
          const queueUrl = requireQueueUrl(options.queue, io, '`attractor serve --store`');
          const catalog = await openRunCatalog(storeUrl, io);
          try {
            const queue = await connectQueueOrExplain(queueUrl, io);
            // PostgreSQL announces appended events (NOTIFY): streams follow them at once and poll slowly besides.
            const notifying = catalog as Partial<Pick<PostgresRunCatalog, 'subscribeEvents'>>;
            return {
              catalog,
              queue,
              ...(notifying.subscribeEvents === undefined
                ? {}
                : { subscribe: notifying.subscribeEvents.bind(catalog), pollMs: 2000 }),
            };
          } catch (error) {
            await catalog.close();
            throw error;
          }
        })();

  let server: Awaited<ReturnType<typeof startServer>>;
  try {
    server = await startServer({
      host: options.host,
      port: options.port,
      ...(token === undefined ? {} : { token }),
      runsDir: resolve(io.cwd, options.runsDir ?? '.attractor/runs'),
      ...(options.pipelines === undefined ? {} : { pipelinesDir: resolve(io.cwd, options.pipelines) }),
      workdir: resolve(io.cwd, options.workdir ?? '.'),
      ...(shared === undefined ? { workspace: await serverWorkspace(options, config, io) } : {}),
      allowTools: options.allowTools === true,
      backendFactory,
      createRegistry: () => {
        const registry = handlers.createDefaultRegistry();
        for (const [type, handler] of config.handlers) registry.register(type, handler);
        return registry;
      },
      simulation,
      secretValues: [...secretValues, ...(io.secretValues ?? [])],
      ...(shared === undefined ? {} : { shared }),
    });
  } catch (error) {
    await shared?.queue.close();
    await shared?.catalog.close();
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE' || code === 'EACCES' || code === 'EADDRNOTAVAIL') {
      throw new CliError({
        code: 'CLI_USAGE',
        message: `Cannot listen on ${options.host}:${options.port} (${code}). Choose another --port (0 picks a free one) or --host.`,
        cause: error,
      });
    }
    throw error;
  }

  // Listen for Ctrl-C before printing the URL: a supervisor may stop the server as soon as it sees it.
  const stopped = waitForStop(command.stopSignal);
  io.stdout.write(`${colors.bold('Attractor server')} listening on ${server.url}\n`);
  // A token from the environment is a secret like any other: the console masks it, so say where it is instead.
  const tokenFromEnv = nonEmpty(options.token) === undefined && token !== undefined;
  if (shared !== undefined) {
    io.stdout.write(
      `Runs: ${shared.catalog.location} (started runs are queued for \`attractor worker\`; queue ${shared.queue.location})\n`,
    );
  }
  io.stdout.write(`Token: ${tokenFromEnv ? `the value of $${SERVER_TOKEN_ENV}` : server.token}\n`);
  io.stdout.write(
    `Open ${server.url}/ and paste the token; API clients send "Authorization: Bearer <token>". Ctrl-C stops the server.\n`,
  );
  if (!isLoopback(options.host)) {
    io.stderr.write(
      `${colors.yellow('warning:')} listening on ${options.host}, not only this machine: anyone who can reach it and has the token can start pipelines.\n`,
    );
  }
  if (options.allowTools === true) {
    io.stderr.write(
      `${colors.yellow('warning:')} --allow-tools: submitted pipelines can run shell commands as this user.\n`,
    );
  }

  await stopped;
  io.stderr.write('Stopping: cancelling running pipelines (their checkpoints are kept)…\n');
  await server.close();
  await shared?.queue.close();
  await shared?.catalog.close();
  return 0;
}

function waitForStop(signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolveStop) => {
    if (signal !== undefined) {
      if (signal.aborted) resolveStop();
      else signal.addEventListener('abort', () => resolveStop(), { once: true });
      return;
    }
    const onSignal = () => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      process.off('SIGHUP', onSignal);
      resolveStop();
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
    process.on('SIGHUP', onSignal);
  });
}

function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || host.startsWith('127.');
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

/**
 * The workspace provider of the server's runs (README "Workspaces"): `--workspace` over the graph's `workspace`
 * attribute over the config's `defaults.workspace` over `$ATTRACTOR_WORKSPACE`, else `auto`.
 */
async function serverWorkspace(
  options: ServeCliOptions,
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
  });
}
