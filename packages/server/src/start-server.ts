/**
 * `startServer`: the HTTP server mode of spec §9.5 in one call — the API and web UI of {@link createServerApp} on a
 * Node HTTP server, with a run manager that gives each run its own directory, context and interviewer.
 */
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import {
  type Clock,
  type CommandSandbox,
  type HandlerRegistry,
  type PipelineEvent,
  type PipelineTelemetry,
  systemClock,
  type WorkspaceProvider,
} from '@attractor/engine';
import { createDefaultRegistry, createSimulationBackend } from '@attractor/handlers';
import { serve } from '@hono/node-server';
import { createServerApp, isLoopbackHostHeader } from './create-server-app.js';
import type { RequestRecord } from './observe-requests.js';
import type { PipelineLimits } from './pipeline-limits.js';
import type { SharedRunStore } from './run-backplane.js';
import { checkRunsDirectory } from './run-directory-files.js';
import { type BackendFactory, RunManager } from './run-manager.js';
import { checkReadiness, type MetricsExposition, type ServerHealth } from './server-health.js';
import type { SimulationMode } from './server-info.js';
import { observeServerRuns } from './server-metrics.js';
import { createSharedStoreBackplane } from './shared-store-backplane.js';
import { checkHeartbeatMs } from './stream-sse-with-heartbeat.js';

/** Options of {@link startServer}. */
export interface StartServerOptions {
  /** Interface to listen on. Default: `127.0.0.1` (loopback only). */
  readonly host?: string;
  /** TCP port; 0 picks a free one (see the returned `url`). Default: 0. */
  readonly port?: number;
  /** The bearer token clients must send. Default: 32 random bytes from node:crypto, base64url (43 characters). */
  readonly token?: string;
  /** Where run directories are created, and where past runs are listed from and resumed. */
  readonly runsDir: string;
  /** A directory of `.dot` files clients may start by relative path (`{"file": "review.dot"}`). Default: none. */
  readonly pipelinesDir?: string;
  /**
   * Accept pipelines that can run shell commands (`tool` nodes, `tool_hooks`, manager loops that load another
   * pipeline file). Default: false: they are refused with 400 `TOOLS_NOT_ALLOWED`.
   */
  readonly allowTools?: boolean;
  /**
   * A fresh handler registry for each run (add custom handlers here). Default: one `createDefaultRegistry()` of
   * `@attractor/handlers` that every run shares (the built-in handlers keep no state of a run; human gates ask the
   * run's HTTP interviewer).
   */
  readonly createRegistry?: () => HandlerRegistry;
  /**
   * The LLM backend of each run, from the request's `simulate` / `model` / `provider`. Default: a fresh
   * `createSimulationBackend()` per run (spec §4.5), so nothing reaches an LLM unless the embedder wires one in
   * (the CLI's `serve` command uses the AI-SDK backend unless asked to simulate).
   */
  readonly backendFactory?: BackendFactory;
  /** Working directory of runs (tool cwd, agent file tools). Default: the engine's default, `process.cwd()`. */
  readonly workdir?: string;
  /**
   * The runs' workspaces (README "Workspaces"): `createWorkspaceProvider()` of `@attractor/workspace` gives each run a
   * git worktree and a commit per stage, and serves what each run and stage changed (`GET /pipelines/{id}/diff`,
   * `/stage-diff`; on a shared store too, for runs the workers executed). Default: none, runs work in `workdir` in
   * place (the CLI's `serve` passes one).
   */
  readonly workspace?: WorkspaceProvider;
  /** Largest accepted request body, in bytes; larger ones get 413. Default: 1048576 (1 MiB). */
  readonly maxBodyBytes?: number;
  /**
   * Interval between two heartbeats of every event stream (an SSE comment `: heartbeat <ms>`; the web UI reconnects
   * a stream that brought nothing for three of them), in milliseconds: a whole number from 1 to 2147483647.
   * Default: 15000 (15 s).
   */
  readonly heartbeatMs?: number;
  /**
   * Secret values masked in everything the runs write and the server sends (the CLI passes the values of its
   * secret-named environment variables and `--secret` names). Token shapes and secret-named keys are masked anyway.
   */
  readonly secretValues?: readonly string[];
  /** Limits on the pipelines and JSON bodies clients send. Default: `DEFAULT_PIPELINE_LIMITS`. */
  readonly limits?: Partial<PipelineLimits>;
  /** Time source. Default: the system clock. */
  readonly clock?: Clock;
  /**
   * Confines the commands of tool and agent stages of the runs this server executes (`createBubblewrapSandbox` of
   * `@attractor/engine`, checked with `checkBubblewrap`). With `shared`, the workers' own setting applies instead.
   * Default: none.
   */
  readonly sandbox?: CommandSandbox;
  /**
   * How the backend treats LLM stages, reported to clients by `GET /server` so the web UI shows the truth:
   * `always` (every run simulated), `required` (no LLM configured: runs must ask for simulation) or `optional`.
   * Default: `always` without a `backendFactory` (the default backend simulates), else `optional`.
   */
  readonly simulation?: SimulationMode;
  /**
   * Serve the runs of a shared run store, executed by workers (`attractor worker`), instead of running them here:
   * starting, resuming and forking enqueue; answers and cancels go through the queue. `runsDir` is then unused.
   * The server closes neither the catalog nor the queue. Default: none (local runs under `runsDir`).
   */
  readonly shared?: SharedRunStore;
  /**
   * OpenTelemetry (a tracer and a meter from `@opentelemetry/api`): a span and a duration measurement per request
   * (continuing a caller's `traceparent`), the runs' spans and metrics (`runPipeline({ telemetry })`), and the runs
   * by state (`attractor.server.runs`). Default: none.
   */
  readonly telemetry?: PipelineTelemetry;
  /**
   * The body of `GET /metrics` (Prometheus text from the embedder's exporter, e.g. OpenTelemetry's
   * `PrometheusExporter`); the route needs the token. Without it there is no `/metrics`. `GET /healthz` and
   * `GET /readyz` (the runs directory, or the shared store and queue, reachable) are always served, without a token.
   */
  readonly metrics?: () => Promise<MetricsExposition>;
  /** Receives every event of the runs this server executes, for a log. Default: none. */
  readonly onRunEvent?: (event: PipelineEvent) => void;
  /** Called once per answered request, for an access log. Default: none. */
  readonly onRequest?: (record: RequestRecord) => void;
}

/** A running server. */
export interface AttractorServer {
  /** The base URL, e.g. `http://127.0.0.1:43117` (the web UI is at `/`). */
  readonly url: string;
  /** The bearer token clients must send. */
  readonly token: string;
  /**
   * Stops the server: refuses new runs, cancels the running ones (each keeps its last checkpoint and can be resumed
   * by the next server on the same runs directory), ends the SSE streams, and closes the port. Idempotent.
   */
  close(): Promise<void>;
}

/** The server's API and web UI without a socket: for {@link startServer}, and for serving them another way (MCP). */
export interface ServerApp {
  /** Answers one HTTP request (the Hono app's `fetch`): the API of spec §9.5 behind the bearer token, and the web UI. */
  readonly fetch: (request: Request) => Response | Promise<Response>;
  /** The bearer token requests must carry. */
  readonly token: string;
  /**
   * Refuses new runs, cancels the running ones (each keeps its last checkpoint), ends the SSE streams and closes the
   * shared store's backplane. Idempotent.
   */
  close(): Promise<void>;
}

/**
 * Builds what {@link startServer} serves, without listening: the run manager (or the shared store's backplane) and
 * the Hono app with its token. `host` only decides the DNS-rebinding defence (loopback hosts accept loopback `Host`
 * headers only); `port` is unused. `attractor mcp` calls the API through `fetch`.
 *
 * @throws {ServerOptionError} when `heartbeatMs` is not a whole number from 1 to 2147483647.
 */
export function openServerApp(options: StartServerOptions): ServerApp {
  checkHeartbeatMs(options.heartbeatMs);
  const host = options.host ?? '127.0.0.1';
  const token = options.token ?? randomBytes(32).toString('base64url');
  // The built-in handlers hold no state of a run (the engine passes each its runtime): without an embedder's
  // factory, the runs share one registry rather than holding ten handlers each (issue 35: memory per waiting run).
  const builtIn = options.createRegistry === undefined ? createDefaultRegistry() : undefined;
  const manager = new RunManager({
    runsDir: resolve(options.runsDir),
    ...(options.pipelinesDir === undefined ? {} : { pipelinesDir: resolve(options.pipelinesDir) }),
    allowTools: options.allowTools ?? false,
    createRegistry: options.createRegistry ?? (() => builtIn!),
    backendFactory: options.backendFactory ?? (() => createSimulationBackend()),
    ...(options.workdir === undefined ? {} : { workdir: resolve(options.workdir) }),
    ...(options.workspace === undefined ? {} : { workspace: options.workspace }),
    clock: options.clock ?? systemClock,
    ...(options.secretValues === undefined ? {} : { secretValues: options.secretValues }),
    ...(options.limits === undefined ? {} : { limits: options.limits }),
    ...(options.sandbox === undefined ? {} : { sandbox: options.sandbox }),
    ...(options.telemetry === undefined ? {} : { telemetry: options.telemetry }),
    ...(options.onRunEvent === undefined ? {} : { onRunEvent: options.onRunEvent }),
    ...(options.createRegistry === undefined ? {} : { customHandlers: true }),
  });
  const backplane =
    options.shared === undefined
      ? undefined
      : createSharedStoreBackplane({
          ...options.shared,
          secrets: manager.secrets,
          allowTools: options.allowTools ?? false,
          validator: manager.validator,
          simulateAll:
            (options.simulation ?? (options.backendFactory === undefined ? 'always' : 'optional')) ===
            'always',
          sleep: manager.sleep,
          now: () => new Date((options.clock ?? systemClock).now()).toISOString(),
        });
  const shared = options.shared;
  const health: ServerHealth = {
    ready: () =>
      checkReadiness({
        sleep: manager.sleep,
        probes:
          shared === undefined
            ? { store: async () => checkRunsDirectory(manager.runsDir) }
            : {
                store: () => shared.catalog.readRunEntry('attractor-readiness-probe'),
                queue: () => shared.queue.countRuns?.() ?? shared.queue.listRuns({ limit: 1 }),
              },
      }),
    ...(options.metrics === undefined ? {} : { metrics: options.metrics }),
  };
  const meter = options.telemetry?.meter;
  const stopObserving =
    meter === undefined
      ? undefined
      : observeServerRuns(meter, () =>
          shared === undefined ? manager.countByState() : (shared.queue.countRuns?.() ?? {}),
        );
  const app = createServerApp({
    health,
    ...(options.telemetry === undefined ? {} : { telemetry: options.telemetry }),
    ...(options.onRequest === undefined ? {} : { onRequest: options.onRequest }),
    manager,
    ...(backplane === undefined ? {} : { backplane }),
    token,
    loopbackHostsOnly: isLoopbackHostHeader(host.includes(':') ? `[${host}]` : host),
    ...(options.pipelinesDir === undefined ? {} : { pipelinesDir: resolve(options.pipelinesDir) }),
    ...(options.maxBodyBytes === undefined ? {} : { maxBodyBytes: options.maxBodyBytes }),
    ...(options.heartbeatMs === undefined ? {} : { heartbeatMs: options.heartbeatMs }),
    simulation: options.simulation ?? (options.backendFactory === undefined ? 'always' : 'optional'),
    allowTools: options.allowTools ?? false,
    ...(options.workspace === undefined ? {} : { workspace: options.workspace }),
  });
  let closing: Promise<void> | undefined;
  return {
    fetch: (request) => app.fetch(request),
    token,
    close() {
      closing ??= (async () => {
        stopObserving?.();
        await backplane?.close();
        await manager.stopAll();
        await manager.streamsDone();
      })();
      return closing;
    },
  };
}

/** How long `close()` lets responses that are ending finish before it cuts the connections left, in milliseconds. */
const CLOSE_GRACE_MS = 1000;

/**
 * Starts the Attractor HTTP server (spec §9.5) and resolves once it listens.
 *
 * @throws {ServerOptionError} when `heartbeatMs` is not a whole number from 1 to 2147483647; nothing has started.
 * @throws {Error} when the port cannot be bound (EADDRINUSE, EACCES).
 *
 * @example
 * const server = await startServer({ runsDir: '.attractor/runs', pipelinesDir: 'pipelines' });
 * console.log(`Open ${server.url} and use the token ${server.token}`);
 * // ...
 * await server.close();
 */
export async function startServer(options: StartServerOptions): Promise<AttractorServer> {
  const host = options.host ?? '127.0.0.1';
  const served = openServerApp(options);
  const { server, address } = await new Promise<{ server: ReturnType<typeof serve>; address: AddressInfo }>(
    (resolveListening, reject) => {
      const listening = serve({ fetch: served.fetch, hostname: host, port: options.port ?? 0 }, (info) =>
        resolveListening({ server: listening, address: info }),
      );
      listening.once('error', reject);
    },
  );
  const urlHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  let closing: Promise<void> | undefined;
  return {
    url: `http://${urlHost}:${address.port}`,
    token: served.token,
    close() {
      closing ??= (async () => {
        const closed = new Promise<void>((resolveClosed) => server.close(() => resolveClosed()));
        await served.close();
        // Responses still ending (an event stream's last bytes, its gzip trailer) get a moment to finish, so their
        // clients see a whole stream; then what is left open is cut.
        const grace = new AbortController();
        await Promise.race([
          closed,
          (options.clock ?? systemClock).sleep(CLOSE_GRACE_MS, grace.signal).catch(() => undefined),
        ]);
        grace.abort();
        if ('closeAllConnections' in server) server.closeAllConnections();
        await closed;
      })();
      return closing;
    },
  };
}
