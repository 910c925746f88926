/**
 * The HTTP routes of the server (spec §9.5) on Hono: the JSON + SSE API behind a bearer token, and the web UI's
 * static files. Embeddable: mount the returned app in another Hono app, or serve it with any Hono adapter.
 */
import { createFileRunStore, type PipelineTelemetry, type WorkspaceProvider } from '@attractor/engine';
import type { Graph } from '@attractor/graph';
import { type Context, Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { compress } from 'hono/compress';
import { secureHeaders } from 'hono/secure-headers';
import type { z } from 'zod';
import { filterArchived, parseArchivedFilter } from './archived-filter.js';
import { requireBearerToken } from './bearer-auth.js';
import { checkpointHistoryQuerySchema, pageCheckpointHistory } from './checkpoint-history.js';
import { ApiError } from './errors/api-error.js';
import { type RequestRecord, reportRequests, traceRequests } from './observe-requests.js';
import { listPipelineFiles } from './pipeline-files.js';
import { checkJsonDepth, type PipelineLimits } from './pipeline-limits.js';
import { drawAhead, isRankDirection, renderRunGraph, warmGraphRenderer } from './render-run-graph.js';
import {
  answerBodySchema,
  forkBodySchema,
  resumeBodySchema,
  startPipelineBodySchema,
} from './request-schemas.js';
import type { RunBackplane } from './run-backplane.js';
import type { RunManager } from './run-manager.js';
import type { RunDetails } from './run-summary.js';
import { addHealthRoutes, addMetricsRoute, type ServerHealth } from './server-health.js';
import type { ServerInfo, SimulationMode } from './server-info.js';
import {
  checkNodeFile,
  describeStoredStageDirectory,
  readStoredNodeFile,
  readStoredStageFile,
  stageDirectoryQuerySchema,
} from './stage-directory-files.js';
import { streamRunChanges } from './stream-run-changes.js';
import { streamRunEvents } from './stream-run-events.js';
import {
  checkHeartbeatMs,
  DEFAULT_HEARTBEAT_MS,
  type StreamSSEWithHeartbeatOptions,
  streamSSEWithHeartbeat,
} from './stream-sse-with-heartbeat.js';
import { readUiFile } from './ui-files.js';
import { mountWorkspaceDiffRoutes } from './workspace-diff-routes.js';

/** Default request body limit: 1 MiB. */
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

/** Options of {@link createServerApp}. */
export interface CreateServerAppOptions {
  readonly manager: RunManager;
  /** The bearer token every API request must carry. */
  readonly token: string;
  /** The pipelines directory listed by `GET /pipeline-files`, when the server has one. */
  readonly pipelinesDir?: string;
  /** Largest accepted request body, in bytes; larger ones get 413. Default: 1 MiB. */
  readonly maxBodyBytes?: number;
  /**
   * Refuse (403 `FORBIDDEN_HOST`) requests whose `Host` header is not a loopback name (`localhost`, `127.x.x.x`,
   * `[::1]`): the DNS-rebinding defence of a server bound to loopback. `startServer` sets it when its host is a
   * loopback address. Default: false.
   */
  readonly loopbackHostsOnly?: boolean;
  /** How LLM stages are treated, as `GET /server` reports it (see {@link SimulationMode}). Default: `optional`. */
  readonly simulation?: SimulationMode;
  /** Whether the run manager accepts pipelines that can run shell commands, as `GET /server` reports it. */
  readonly allowTools?: boolean;
  /**
   * Where runs live and execute when not in `manager`'s runs directory: a shared run store and queue
   * (`createSharedStoreBackplane`). The run routes (list, start, details, events, cancel, resume, fork, questions,
   * answers, source, graph, checkpoint, context) then go to it. Default: none (local runs, `manager`).
   */
  readonly backplane?: RunBackplane;
  /** `GET /healthz`, `GET /readyz` (no token) and `GET /metrics` (token). Default: none of them. */
  readonly health?: ServerHealth;
  /** A span and a duration measurement per request, on this tracer and meter. Default: none. */
  readonly telemetry?: PipelineTelemetry;
  /** Called once per answered request (method, route, status, duration), for an access log. Default: none. */
  readonly onRequest?: (record: RequestRecord) => void;
  /**
   * The runs' workspace provider, whose `diff` serves `GET /pipelines/{id}/diff` and `/stage-diff` (README
   * "Workspaces"). Default: none (those routes answer 404 `NO_WORKSPACE`).
   */
  readonly workspace?: WorkspaceProvider;
  /**
   * Interval between two heartbeats of every event stream (`GET /events`, `GET /pipelines/{id}/events`), in
   * milliseconds: an SSE comment `: heartbeat <ms>` that tells a client the connection is alive while no event comes
   * (the web UI reconnects a stream that brought nothing for three heartbeats). A whole number from 1 to 2147483647
   * (the longest delay of a Node.js timer). Default: 15000 (15 s).
   */
  readonly heartbeatMs?: number;
}

/** Whether a `Host` header names this machine's loopback interface (any port). */
export function isLoopbackHostHeader(host: string): boolean {
  const name = host.startsWith('[') ? host.slice(1, host.indexOf(']')) : host.replace(/:\d*$/, '');
  const lower = name.toLowerCase();
  return (
    lower === 'localhost' ||
    lower.endsWith('.localhost') ||
    lower === '::1' ||
    /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(lower)
  );
}

/**
 * What a failing event stream does: the client gets the failure as an SSE `error` event carrying its message (Hono
 * writes it after this returns); nothing goes to the console, where Hono would otherwise print the stack.
 */
async function reportStreamError(): Promise<void> {}

/**
 * Builds the Hono app: `GET /` and `/ui/*` (the web UI, no token needed: it holds no data), and behind the bearer
 * token every API route of spec §9.5 plus resume, stage files and the pipelines directory listing. Errors are JSON
 * `{ "error": { "code", "message", ... } }`.
 *
 * @throws {ServerOptionError} when `heartbeatMs` is not a whole number from 1 to 2147483647.
 */
export function createServerApp(options: CreateServerAppOptions): Hono {
  checkHeartbeatMs(options.heartbeatMs);
  const { manager } = options;
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const heartbeat = {
    heartbeatMs: options.heartbeatMs ?? DEFAULT_HEARTBEAT_MS,
    sleep: manager.sleep,
    onError: reportStreamError,
  };
  const app = new Hono();

  app.onError((error, c) => {
    if (ApiError.isInstance(error)) {
      if (error.status === 401) c.header('WWW-Authenticate', 'Bearer realm="attractor"');
      if (error.retryAfterSeconds !== undefined) c.header('Retry-After', String(error.retryAfterSeconds));
      return c.json(error.toJson(), error.status as 400);
    }
    // Input too deep or too large for a recursive step is the client's doing: 422, never a 500 with a stack.
    if (error instanceof RangeError) {
      return c.json(
        {
          error: {
            code: 'LIMIT_EXCEEDED',
            message: `The request is too deeply nested or too large to process (${error.message}).`,
          },
        },
        422,
      );
    }
    return c.json({ error: { code: 'INTERNAL', message: error.message } }, 500);
  });
  app.notFound((c) =>
    c.json({ error: { code: 'NOT_FOUND', message: `No route ${c.req.method} ${c.req.path}.` } }, 404),
  );

  if (options.telemetry !== undefined) app.use('*', traceRequests(options.telemetry));
  if (options.onRequest !== undefined)
    app.use(
      '*',
      reportRequests(options.onRequest, () => performance.now()),
    );

  if (options.loopbackHostsOnly === true) {
    app.use('*', async (c, next) => {
      const host = c.req.header('host') ?? '';
      if (!isLoopbackHostHeader(host)) {
        throw new ApiError({
          status: 403,
          code: 'FORBIDDEN_HOST',
          message: `This server listens on loopback only and refuses Host "${host}" (DNS-rebinding defence). Use http://127.0.0.1:<port>/ or http://localhost:<port>/.`,
        });
      }
      await next();
    });
  }

  app.use(
    '*',
    secureHeaders({
      contentSecurityPolicy: {
        defaultSrc: ["'self'"],
        imgSrc: ["'self'", 'data:'],
        styleSrc: ["'self'", "'unsafe-inline'"],
        frameAncestors: ["'none'"],
        formAction: ["'self'"],
      },
      referrerPolicy: 'no-referrer',
    }),
  );

  // gzip (or deflate) for a client that accepts it: the UI bundle, the run's SVG, JSON and text bodies. Hono's
  // middleware leaves event streams alone (`text/event-stream` is not in its compressible types, and streamSSE sets
  // `Transfer-Encoding`): `streamSSEWithHeartbeat` gzips those itself, flushing every write, so every SSE event still
  // reaches the client when it is written. GET requests only: a compressed answer is streamed, and one refusing a
  // request whose body was not read (413, 401 before a large upload ends) made Node close the connection under the
  // client, which then saw a reset instead of the error.
  const compressResponse = compress();
  app.use('*', (c, next) => (c.req.method === 'GET' ? compressResponse(c, next) : next()));

  const serveUi = (name: string) => (c: Context) => {
    const file = readUiFile(name);
    if (file === undefined)
      throw new ApiError({ status: 404, code: 'NOT_FOUND', message: `No UI file ${name}.` });
    c.header('Content-Type', file.contentType);
    c.header('Cache-Control', file.immutable ? 'public, max-age=31536000, immutable' : 'no-cache');
    return c.body(file.body);
  };
  // The page routes of the single-page UI all serve index.html; the app reads the path. A page that opens will ask
  // for a drawing soon: Graphviz starts now rather than when that request comes.
  const servePage = (c: Context) => {
    warmGraphRenderer();
    return serveUi('index.html')(c);
  };
  app.get('/', servePage);
  app.get('/new', servePage);
  app.get('/runs/:id', servePage);
  app.get('/ui/assets/:file', (c) => serveUi(`assets/${c.req.param('file')}`)(c));

  if (options.health !== undefined) addHealthRoutes(app, options.health);
  app.use('*', requireBearerToken(options.token));
  app.use('*', async (c, next) => {
    await next();
    if (!c.res.headers.has('Cache-Control')) c.header('Cache-Control', 'no-store');
  });
  app.use(
    '*',
    bodyLimit({
      maxSize: maxBodyBytes,
      onError: () => {
        throw new ApiError({
          status: 413,
          code: 'BODY_TOO_LARGE',
          message: `The request body is larger than ${maxBodyBytes} bytes. Put large pipelines in the server's pipelines directory and start them with {"file": ...}.`,
        });
      },
    }),
  );

  if (options.health !== undefined) addMetricsRoute(app, options.health);
  app.get('/server', (c) =>
    c.json({
      simulation: options.simulation ?? 'optional',
      allowTools: options.allowTools ?? false,
      pipelinesDirectory: options.pipelinesDir !== undefined,
      capabilities: { fork: true },
    } satisfies ServerInfo),
  );

  if (options.backplane !== undefined) mountBackplaneRoutes(app, options.backplane, manager, heartbeat);
  mountWorkspaceDiffRoutes(app, {
    workspace: options.workspace,
    openStore:
      options.backplane?.openStore ??
      (async (runId) => {
        await manager.summaryOf(runId);
        return createFileRunStore({ logsRoot: manager.runDirectory(runId), createDirectory: false });
      }),
    secrets: manager.secrets,
  });

  app.get('/events', (c) =>
    streamSSEWithHeartbeat(
      c,
      (stream) => manager.trackStream(streamRunChanges(stream, { manager, sleep: manager.sleep })),
      heartbeat,
    ),
  );

  app.get('/pipelines', async (c) => {
    const archived = parseArchivedFilter(c.req.query('archived'));
    return c.json({ pipelines: filterArchived(await manager.list(), archived) });
  });

  app.post('/pipelines', async (c) => {
    const contentType = c.req.header('content-type') ?? '';
    const body = contentType.startsWith('text/')
      ? { dot: await c.req.text() }
      : parseBody(startPipelineBodySchema, await readJson(c, manager.limits));
    const summary = await manager.start(body);
    drawAhead(() => manager.graphOf(summary.id));
    return c.json(summary, 201, { Location: `/pipelines/${encodeURIComponent(summary.id)}` });
  });

  app.get('/pipeline-files', (c) =>
    c.json({ files: options.pipelinesDir === undefined ? [] : listPipelineFiles(options.pipelinesDir) }),
  );

  // `?child=<path>` on the read routes of a run: the same for a child run (sub-pipeline, manager loop) inside it.
  const childPathOf = (c: Context): string | undefined => c.req.query('child');

  app.get('/pipelines/:id', async (c) => {
    const id = c.req.param('id');
    const child = childPathOf(c);
    return c.json(
      manager.secrets.mask(
        child === undefined ? await manager.details(id) : await manager.childDetails(id, child),
      ),
    );
  });

  app.get('/pipelines/:id/events', (c) => {
    const runId = c.req.param('id');
    const childPath = childPathOf(c);
    const child = childPath === undefined ? undefined : manager.childRun(runId, childPath);
    const logsRoot = child?.logsRoot ?? manager.runDirectory(runId);
    const header = c.req.header('last-event-id') ?? c.req.query('lastEventId') ?? '0';
    const lastEventId = /^\d+$/.test(header) ? Number(header) : 0;
    return streamSSEWithHeartbeat(
      c,
      (stream) =>
        manager.trackStream(
          streamRunEvents(stream, {
            manager,
            runId,
            logsRoot,
            lastEventId,
            ...(child === undefined ? {} : { child }),
            follow: c.req.query('follow') !== 'false',
          }),
        ),
      heartbeat,
    );
  });

  app.post('/pipelines/:id/cancel', async (c) => c.json(await manager.cancel(c.req.param('id'))));

  app.delete('/pipelines/:id', async (c) => {
    await manager.remove(c.req.param('id'));
    return c.body(null, 204);
  });

  app.post('/pipelines/:id/archive', async (c) => c.json(await manager.setArchived(c.req.param('id'), true)));
  app.post('/pipelines/:id/unarchive', async (c) =>
    c.json(await manager.setArchived(c.req.param('id'), false)),
  );

  app.post('/pipelines/:id/resume', async (c) => {
    const text = await c.req.text();
    const body = text.trim() === '' ? {} : parseBody(resumeBodySchema, parseJsonText(text, manager.limits));
    return c.json(await manager.resume(c.req.param('id'), body));
  });

  app.post('/pipelines/:id/fork', async (c) => {
    const text = await c.req.text();
    const body = parseBody(forkBodySchema, parseJsonText(text, manager.limits));
    return c.json(await manager.fork(c.req.param('id'), body));
  });

  // The DOT source a run was started with (what "Fork from here" offers to edit).
  app.get('/pipelines/:id/source', async (c) => {
    const source = await manager.source(c.req.param('id'));
    c.header('Content-Type', 'text/vnd.graphviz; charset=utf-8');
    return c.body(manager.secrets.maskText(source));
  });

  app.get('/pipelines/:id/graph', async (c) => {
    const id = c.req.param('id');
    const child = childPathOf(c);
    return sendRunGraph(c, {
      graph: () => (child === undefined ? manager.graphOf(id) : manager.childGraph(id, child)),
      details: () => (child === undefined ? manager.details(id) : manager.childDetails(id, child)),
    });
  });

  /** The run directory of run `:id`, or with `?child=`, of that child run inside it. */
  const runOrChildDirectory = (c: Context): string => {
    const id = c.req.param('id')!;
    const child = childPathOf(c);
    return child === undefined ? manager.runDirectory(id) : manager.childRun(id, child).logsRoot;
  };

  app.get('/pipelines/:id/questions', async (c) => {
    const id = c.req.param('id');
    await manager.summaryOf(id);
    const live = manager.live(id);
    return c.json({
      questions: manager.secrets.mask(live === undefined || live.ended ? [] : live.interviewer.pending()),
    });
  });

  app.post('/pipelines/:id/questions/:qid/answer', async (c) => {
    const id = c.req.param('id');
    const qid = c.req.param('qid');
    const body = parseBody(answerBodySchema, await readJson(c, manager.limits));
    await manager.summaryOf(id);
    const live = manager.live(id);
    if (live === undefined || live.ended) {
      throw new ApiError({
        status: 404,
        code: 'QUESTION_NOT_FOUND',
        message: `Run "${id}" is not running, so it has no pending question "${qid}".`,
      });
    }
    const answer = live.interviewer.answer(qid, body);
    return c.json({ questionId: qid, answer });
  });

  app.get('/pipelines/:id/checkpoint', async (c) => {
    const logsRoot = runOrChildDirectory(c);
    const checkpoint = await createFileRunStore({ logsRoot }).readCheckpoint();
    if (checkpoint === undefined) {
      throw new ApiError({ status: 404, code: 'NOT_FOUND', message: 'The run has no checkpoint yet.' });
    }
    return c.json(manager.secrets.mask(checkpoint));
  });

  app.get('/pipelines/:id/checkpoints', async (c) => {
    const query = checkpointHistoryQueryOf(c);
    // 404 for an unknown run before its child is looked for
    await manager.summaryOf(c.req.param('id'));
    const store = createFileRunStore({ logsRoot: runOrChildDirectory(c), createDirectory: false });
    const history = await store.readCheckpointHistory();
    return c.json(pageCheckpointHistory({ history, secrets: manager.secrets, ...query }));
  });

  app.get('/pipelines/:id/context', async (c) => {
    const logsRoot = runOrChildDirectory(c);
    const checkpoint = await createFileRunStore({ logsRoot }).readCheckpoint();
    return c.json({
      context: manager.secrets.mask(checkpoint?.context ?? {}),
      // The context as of the last checkpoint (written after every completed node).
      ...(checkpoint === undefined ? {} : { asOf: checkpoint.timestamp, afterNode: checkpoint.current_node }),
    });
  });

  app.get('/pipelines/:id/stage', async (c) => {
    const logsRoot = runOrChildDirectory(c);
    const { child: _child, ...rest } = c.req.query();
    const query = parseQuery(stageDirectoryQuerySchema, rest);
    return c.json(
      await describeStoredStageDirectory(createFileRunStore({ logsRoot, createDirectory: false }), query.dir),
    );
  });

  app.get('/pipelines/:id/stage-file', async (c) => {
    const logsRoot = runOrChildDirectory(c);
    const { child: _child, ...rest } = c.req.query();
    const query = parseQuery(stageDirectoryQuerySchema, rest);
    if (query.name === undefined) {
      throw new ApiError({
        status: 400,
        code: 'INVALID_REQUEST',
        message: 'Give the file with ?name= (prompt.md, response.md, status.json, stdout.txt or stderr.txt).',
      });
    }
    const text = await readStoredStageFile(
      createFileRunStore({ logsRoot, createDirectory: false }),
      query.dir,
      query.name,
    );
    c.header('Content-Type', stageFileContentType(query.name));
    return c.body(manager.secrets.maskText(text));
  });

  app.get('/pipelines/:id/stages/:node/:file', async (c) => {
    const logsRoot = manager.runDirectory(c.req.param('id'));
    const file = c.req.param('file');
    const text = await readStoredNodeFile(
      createFileRunStore({ logsRoot, createDirectory: false }),
      c.req.param('node'),
      file,
    );
    c.header('Content-Type', stageFileContentType(file));
    return c.body(manager.secrets.maskText(text));
  });

  return app;
}

/** The `offset` and `limit` of a `GET /pipelines/{id}/checkpoints` request (`child` is the routes' own). */
function checkpointHistoryQueryOf(c: Context): { offset?: number; limit?: number } {
  const { child: _child, ...rest } = c.req.query();
  return parseQuery(checkpointHistoryQuerySchema, rest);
}

/** The `Content-Type` a stage file is served with: JSON for `status.json`, else UTF-8 text. */
function stageFileContentType(name: string): string {
  return name.endsWith('.json') ? 'application/json; charset=utf-8' : 'text/plain; charset=utf-8';
}

/**
 * Answers with the run's graph as SVG, each node coloured by its status in the run's details (local and shared runs
 * alike); with `?statuses=none`, every node pending: the same drawing for every run of the graph (the web UI's, which
 * colours nodes itself from the run's events), laid out once, and the details are not read. The query is checked
 * before anything is read; an unknown run is the readers' `404`.
 */
async function sendRunGraph(
  c: Context,
  read: {
    readonly graph: () => Promise<Graph>;
    readonly details: () => Promise<RunDetails | undefined>;
  },
): Promise<Response> {
  const rankdir = c.req.query('rankdir');
  if (rankdir !== undefined && !isRankDirection(rankdir)) {
    throw new ApiError({
      status: 400,
      code: 'INVALID_REQUEST',
      message: `?rankdir=${rankdir} is not a direction: use TB (top to bottom), LR (left to right), BT or RL.`,
    });
  }
  const statuses = c.req.query('statuses');
  if (statuses !== undefined && statuses !== 'none') {
    throw new ApiError({
      status: 400,
      code: 'INVALID_REQUEST',
      message: `?statuses=${statuses} is not known: use ?statuses=none for the drawing without the run's statuses, or leave it out.`,
    });
  }
  const [graph, details] = await Promise.all([
    read.graph(),
    statuses === 'none' ? undefined : read.details(),
  ]);
  const current = details?.live === true ? details.currentNode : undefined;
  const svg = await renderRunGraph({
    ...(rankdir === undefined ? {} : { rankdir }),
    graph,
    ...(details === undefined
      ? { statuses: {} }
      : {
          statuses: details.nodeStatuses,
          ...(current === undefined ? {} : { currentNodeId: current }),
          waitingNodeIds: new Set(details.waitingNodes),
        }),
  });
  c.header('Content-Type', 'image/svg+xml; charset=utf-8');
  return c.body(svg);
}

async function readJson(c: Context, limits: PipelineLimits): Promise<unknown> {
  return parseJsonText(await c.req.text(), limits);
}

function parseJsonText(text: string, limits: PipelineLimits): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new ApiError({
      status: 400,
      code: 'INVALID_REQUEST',
      message: `The request body is not valid JSON (${(error as Error).message}).`,
    });
  }
  // Before the schema, whose checks recurse.
  checkJsonDepth(value, limits);
  return value;
}

function parseQuery<TSchema extends z.ZodType>(schema: TSchema, value: unknown): z.infer<TSchema> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    throw new ApiError({
      status: 400,
      code: 'INVALID_REQUEST',
      message: `Invalid query: ${parsed.error.issues.map((issue) => `${issue.path.join('.') || 'query'}: ${issue.message}`).join('; ')}`,
      details: { issues: parsed.error.issues },
    });
  }
  return parsed.data;
}

function parseBody<TSchema extends z.ZodType>(schema: TSchema, value: unknown): z.infer<TSchema> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) =>
      issue.path.length === 0 ? issue.message : `${issue.path.join('.')}: ${issue.message}`,
    );
    throw new ApiError({
      status: 400,
      code: 'INVALID_REQUEST',
      message: `Invalid request body: ${problems.join('; ')}`,
      details: { issues: parsed.error.issues },
    });
  }
  return parsed.data;
}

/**
 * The run routes served by a {@link RunBackplane} (a shared run store). Registered before the local routes, so
 * they answer first; the routes it does not serve stay the local ones.
 */
function mountBackplaneRoutes(
  app: Hono,
  backplane: RunBackplane,
  manager: RunManager,
  heartbeat: StreamSSEWithHeartbeatOptions,
): void {
  app.get('/events', (c) =>
    streamSSEWithHeartbeat(c, (stream) => backplane.streamChanges(stream), heartbeat),
  );
  app.get('/pipelines', async (c) => {
    const archived = parseArchivedFilter(c.req.query('archived'));
    return c.json({ pipelines: filterArchived(await backplane.list(), archived) });
  });
  app.post('/pipelines', async (c) => {
    const contentType = c.req.header('content-type') ?? '';
    const body = contentType.startsWith('text/')
      ? { dot: await c.req.text() }
      : parseBody(startPipelineBodySchema, await readJson(c, manager.limits));
    if (body.dot === undefined) {
      throw new ApiError({
        status: 400,
        code: 'INVALID_REQUEST',
        message: 'A server on a shared run store starts runs from "dot" (DOT source text) only.',
      });
    }
    const { dot, file: _file, maxSteps: _maxSteps, ...rest } = body;
    const summary = await backplane.start({ source: dot, ...rest });
    return c.json(summary, 201, { Location: `/pipelines/${encodeURIComponent(summary.id)}` });
  });
  // `?child=<path>`: the same for a child run (sub-pipeline, manager loop) inside the run, from its child store.
  const childOf = (c: Context): string | undefined => c.req.query('child');
  app.get('/pipelines/:id', async (c) => c.json(await backplane.details(c.req.param('id'), childOf(c))));
  app.get('/pipelines/:id/events', async (c) => {
    const header = c.req.header('last-event-id') ?? c.req.query('lastEventId') ?? '0';
    const lastEventId = /^\d+$/.test(header) ? Number(header) : 0;
    const runId = c.req.param('id');
    const child = childOf(c);
    // 404 for a run neither the store nor the queue knows (or a child it does not hold), 400 for a bad child path
    await backplane.details(runId, child);
    const follow = c.req.query('follow') !== 'false';
    return streamSSEWithHeartbeat(
      c,
      (stream) => backplane.streamEvents(stream, runId, lastEventId, child, follow),
      heartbeat,
    );
  });
  app.post('/pipelines/:id/cancel', async (c) => c.json(await backplane.cancel(c.req.param('id'))));

  app.delete('/pipelines/:id', async (c) => {
    await backplane.remove(c.req.param('id'));
    return c.body(null, 204);
  });
  app.post('/pipelines/:id/archive', async (c) =>
    c.json(await backplane.setArchived(c.req.param('id'), true)),
  );
  app.post('/pipelines/:id/unarchive', async (c) =>
    c.json(await backplane.setArchived(c.req.param('id'), false)),
  );
  app.post('/pipelines/:id/resume', async (c) => {
    const text = await c.req.text();
    const body = text.trim() === '' ? {} : parseBody(resumeBodySchema, parseJsonText(text, manager.limits));
    if (body.from !== undefined) {
      throw new ApiError({
        status: 400,
        code: 'INVALID_REQUEST',
        message:
          'On a shared run store a run resumes from its checkpoint; use fork to start from another stage.',
      });
    }
    return c.json(await backplane.resume(c.req.param('id')));
  });
  app.post('/pipelines/:id/fork', async (c) => {
    const text = await c.req.text();
    const body = parseBody(forkBodySchema, parseJsonText(text, manager.limits));
    return c.json(await backplane.fork(c.req.param('id'), body));
  });
  app.get('/pipelines/:id/stage', async (c) => {
    const { child, ...rest } = c.req.query();
    const query = parseQuery(stageDirectoryQuerySchema, rest);
    return c.json(await backplane.stageDirectory(c.req.param('id'), query.dir, child));
  });
  app.get('/pipelines/:id/stage-file', async (c) => {
    const { child, ...rest } = c.req.query();
    const query = parseQuery(stageDirectoryQuerySchema, rest);
    if (query.name === undefined) {
      throw new ApiError({
        status: 400,
        code: 'INVALID_REQUEST',
        message: 'Give the file with ?name= (prompt.md, response.md, status.json, stdout.txt or stderr.txt).',
      });
    }
    const text = await backplane.stageFile(c.req.param('id'), query.dir, query.name, child);
    c.header('Content-Type', stageFileContentType(query.name));
    return c.body(manager.secrets.maskText(text));
  });
  // The run's own stage files by node id, read from the store like `/stage-file` (the same names and 404s as locally).
  app.get('/pipelines/:id/stages/:node/:file', async (c) => {
    const nodeId = c.req.param('node');
    const file = checkNodeFile(nodeId, c.req.param('file'));
    const text = await backplane.stageFile(c.req.param('id'), nodeId, file);
    c.header('Content-Type', stageFileContentType(file));
    return c.body(manager.secrets.maskText(text));
  });
  app.get('/pipelines/:id/source', async (c) => {
    const id = c.req.param('id');
    const source = await backplane.source(id);
    if (source === undefined) {
      throw new ApiError({
        status: 404,
        code: 'NOT_FOUND',
        message: `The DOT source of run "${id}" is not known here.`,
      });
    }
    c.header('Content-Type', 'text/vnd.graphviz; charset=utf-8');
    return c.body(manager.secrets.maskText(source));
  });
  app.get('/pipelines/:id/graph', async (c) => {
    const id = c.req.param('id');
    const child = childOf(c);
    return sendRunGraph(c, {
      graph: () => backplane.graph(id, child),
      details: () => backplane.details(id, child),
    });
  });
  app.get('/pipelines/:id/questions', async (c) =>
    c.json({ questions: await backplane.questions(c.req.param('id')) }),
  );
  app.post('/pipelines/:id/questions/:qid/answer', async (c) => {
    const qid = c.req.param('qid');
    const body = parseBody(answerBodySchema, await readJson(c, manager.limits));
    const { answer } = await backplane.answer(c.req.param('id'), qid, body.value ?? body.text ?? '');
    return c.json({ questionId: qid, answer });
  });
  app.get('/pipelines/:id/checkpoint', async (c) => {
    const checkpoint = await backplane.checkpoint(c.req.param('id'), childOf(c));
    if (checkpoint === undefined) {
      throw new ApiError({ status: 404, code: 'NOT_FOUND', message: 'The run has no checkpoint yet.' });
    }
    return c.json(manager.secrets.mask(checkpoint));
  });
  app.get('/pipelines/:id/checkpoints', async (c) => {
    const query = checkpointHistoryQueryOf(c);
    const history = await backplane.checkpointHistory(c.req.param('id'), childOf(c));
    return c.json(pageCheckpointHistory({ history, secrets: manager.secrets, ...query }));
  });
  app.get('/pipelines/:id/context', async (c) => {
    const checkpoint = await backplane.checkpoint(c.req.param('id'), childOf(c));
    return c.json({
      context: manager.secrets.mask(checkpoint?.context ?? {}),
      ...(checkpoint === undefined ? {} : { asOf: checkpoint.timestamp, afterNode: checkpoint.current_node }),
    });
  });
}
