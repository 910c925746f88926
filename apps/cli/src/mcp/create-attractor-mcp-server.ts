/**
 * Attractor as an MCP server (README "MCP"): tools to validate a pipeline and to start, watch, steer and read runs,
 * made with the official MCP TypeScript SDK. The run tools call the HTTP API of `attractor serve` in-process
 * (`ServerApiClient`), so runs, checks (`--allow-tools`), masking and the shared store (`--store`) are the server's.
 */
import { prepareGraph } from '@attractor/graph';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { ApiAnswer, ServerApiClient } from './server-api-client.js';

/** What the validation tool lints with: the config's handler types, declarations and MCP server names. */
export interface McpLintOptions {
  readonly knownHandlerTypes: readonly string[];
  readonly handlers: NonNullable<Parameters<typeof prepareGraph>[1]>['handlers'];
  readonly mcpServers: readonly string[];
}

/** Options of {@link createAttractorMcpServer}. */
export interface AttractorMcpServerOptions {
  readonly api: ServerApiClient;
  readonly lint: McpLintOptions;
  /** The CLI's version, reported to clients. */
  readonly version: string;
}

/** Run states in which `wait_for_run` waits (the others: waiting for an answer, ended, interrupted). */
const FOLLOWED_STATES: ReadonlySet<string> = new Set(['queued', 'running']);

function json(value: unknown): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(value, null, 2) }] };
}

/** An API answer as a tool result: the body as JSON, or the API error (`code: message`) as an error result. */
function answer(result: ApiAnswer): CallToolResult {
  if (result.ok)
    return typeof result.body === 'string'
      ? { content: [{ type: 'text', text: result.body }] }
      : json(result.body);
  const error = (result.body as { error?: { code?: string; message?: string } } | undefined)?.error;
  return {
    isError: true,
    content: [
      {
        type: 'text',
        text:
          error === undefined
            ? `HTTP ${result.status}: ${typeof result.body === 'string' ? result.body : JSON.stringify(result.body)}`
            : `${error.code ?? `HTTP ${result.status}`}: ${error.message ?? ''}`,
      },
    ],
  };
}

const runPath = (runId: string) => `/pipelines/${encodeURIComponent(runId)}`;

/**
 * Creates the MCP server with Attractor's tools. Connect it to a transport (`StdioServerTransport`, or a streamable
 * HTTP transport per request).
 */
export function createAttractorMcpServer(options: AttractorMcpServerOptions): McpServer {
  const { api } = options;
  const server = new McpServer(
    { name: 'attractor', version: options.version },
    {
      instructions:
        'Attractor runs multi-stage AI pipelines written as Graphviz DOT files. Validate a pipeline, start a run, then follow it with wait_for_run (it returns when the run asks a question or ends), answer human gates with answer_question, and read stage files (prompt.md, response.md, status.json) with read_stage_file.',
    },
  );

  server.registerTool(
    'validate_pipeline',
    {
      description:
        'Parse, transform and lint a DOT pipeline (spec §7): returns whether it is valid and every diagnostic with its line, column and fix.',
      inputSchema: { dot: z.string().describe('The DOT source of the pipeline') },
      annotations: { readOnlyHint: true },
    },
    async ({ dot }) => {
      const prepared = prepareGraph(dot, {
        filename: 'pipeline.dot',
        knownHandlerTypes: options.lint.knownHandlerTypes,
        ...(options.lint.handlers === undefined ? {} : { handlers: options.lint.handlers }),
        mcpServers: options.lint.mcpServers,
      });
      const diagnostics = prepared.diagnostics.map((diagnostic) => ({
        severity: diagnostic.severity,
        rule: diagnostic.rule,
        message: diagnostic.message,
        ...(diagnostic.span === undefined
          ? {}
          : { line: diagnostic.span.start.line, column: diagnostic.span.start.column }),
        ...(diagnostic.fix === undefined ? {} : { fix: diagnostic.fix }),
      }));
      return json({
        valid:
          prepared.graph !== undefined && diagnostics.every((diagnostic) => diagnostic.severity !== 'error'),
        diagnostics,
      });
    },
  );

  server.registerTool(
    'start_run',
    {
      description:
        'Start a pipeline run from DOT source (dot) or a file of the pipelines directory (file). Returns the run summary with its id. Pipelines that run shell commands are refused unless the server was started with --allow-tools.',
      inputSchema: {
        dot: z.string().optional().describe('DOT source; give exactly one of dot and file'),
        file: z.string().optional().describe('A .dot path under the --pipelines directory'),
        simulate: z.boolean().optional().describe('Simulate the LLM stages (no model is called)'),
        model: z.string().optional().describe('Model of LLM stages that name none'),
        provider: z.string().optional(),
        context: z.record(z.string(), z.json()).optional().describe('Initial context values'),
      },
    },
    async (input) => answer(await api.request({ method: 'POST', path: '/pipelines', body: input })),
  );

  server.registerTool(
    'list_runs',
    { description: 'List the runs, newest first, with their state.', annotations: { readOnlyHint: true } },
    async () => answer(await api.request({ method: 'GET', path: '/pipelines' })),
  );

  server.registerTool(
    'get_run',
    {
      description:
        'The status of a run: state (running, waiting, success, fail, cancelled, interrupted), current node, node statuses, pending questions, usage, and the stage files that exist.',
      inputSchema: { run_id: z.string() },
      annotations: { readOnlyHint: true },
    },
    async ({ run_id }) => answer(await api.request({ method: 'GET', path: runPath(run_id) })),
  );

  server.registerTool(
    'get_events',
    {
      description:
        "A run's recorded events (spec §9.6) after the event number `after` (their seq), without waiting; returns the events and the run's state.",
      inputSchema: {
        run_id: z.string(),
        after: z.number().int().min(0).optional().describe('Only events with a greater seq (default 0: all)'),
      },
      annotations: { readOnlyHint: true },
    },
    async ({ run_id, after }) => {
      const events: unknown[] = [];
      let state: unknown;
      const refused = await api.stream({
        path: `${runPath(run_id)}/events?follow=false&lastEventId=${after ?? 0}`,
        onMessage: (message) => {
          if (message.event === 'end') {
            state = (message.data as { state?: unknown }).state;
            return 'stop';
          }
          events.push(message.data);
          return undefined;
        },
      });
      return refused === undefined ? json({ state, events }) : answer(refused);
    },
  );

  server.registerTool(
    'wait_for_run',
    {
      description:
        'Wait until the run asks a question (a human gate) or ends, then return its status and pending questions. Returns at once when it already waits or has ended.',
      inputSchema: { run_id: z.string() },
      annotations: { readOnlyHint: true },
    },
    async ({ run_id }) => {
      const status = async (): Promise<CallToolResult> => {
        const details = await api.request({ method: 'GET', path: runPath(run_id) });
        if (!details.ok) return answer(details);
        const questions = await api.request({ method: 'GET', path: `${runPath(run_id)}/questions` });
        return json({ run: details.body, ...(questions.ok ? (questions.body as object) : {}) });
      };
      /** Only a queued or running run without a question can still change by itself. */
      const settled = (summary: { state?: string; pendingQuestions?: number }) =>
        !FOLLOWED_STATES.has(summary.state ?? '') || (summary.pendingQuestions ?? 0) > 0;
      let refused: ApiAnswer | undefined;
      // The server's run changes (`GET /events`, local runs and the shared store alike): subscribed first, then the
      // run's state read, so a change in between is not missed.
      const streamRefused = await api.stream({
        path: '/events',
        onMessage: async (message) => {
          if (message.event === 'ready') {
            const first = await api.request({ method: 'GET', path: runPath(run_id) });
            if (!first.ok) {
              refused = first;
              return 'stop';
            }
            return settled(first.body as { state?: string }) ? 'stop' : undefined;
          }
          const summary = message.data as { id?: string; state?: string; pendingQuestions?: number };
          return message.event === 'run' && summary.id === run_id && settled(summary) ? 'stop' : undefined;
        },
      });
      const failed = streamRefused ?? refused;
      return failed === undefined ? status() : answer(failed);
    },
  );

  server.registerTool(
    'get_questions',
    {
      description: "A run's pending human-gate questions, with their ids and options.",
      inputSchema: { run_id: z.string() },
      annotations: { readOnlyHint: true },
    },
    async ({ run_id }) => answer(await api.request({ method: 'GET', path: `${runPath(run_id)}/questions` })),
  );

  server.registerTool(
    'answer_question',
    {
      description:
        'Answer a pending question of a run: value is an option key or label (or yes / no), text is free text.',
      inputSchema: {
        run_id: z.string(),
        question_id: z.string(),
        value: z.string().optional(),
        text: z.string().optional(),
      },
    },
    async ({ run_id, question_id, value, text }) =>
      answer(
        await api.request({
          method: 'POST',
          path: `${runPath(run_id)}/questions/${encodeURIComponent(question_id)}/answer`,
          body: { ...(value === undefined ? {} : { value }), ...(text === undefined ? {} : { text }) },
        }),
      ),
  );

  server.registerTool(
    'read_stage_file',
    {
      description:
        'A file of a stage of a run: prompt.md, response.md, status.json, stdout.txt or stderr.txt (get_run lists those that exist).',
      inputSchema: { run_id: z.string(), node_id: z.string(), file: z.string() },
      annotations: { readOnlyHint: true },
    },
    async ({ run_id, node_id, file }) =>
      answer(
        await api.request({
          method: 'GET',
          path: `${runPath(run_id)}/stages/${encodeURIComponent(node_id)}/${encodeURIComponent(file)}`,
        }),
      ),
  );

  server.registerTool(
    'cancel_run',
    {
      description: 'Cancel a running run; it keeps its checkpoint and can be resumed.',
      inputSchema: { run_id: z.string() },
      annotations: { destructiveHint: true },
    },
    async ({ run_id }) => answer(await api.request({ method: 'POST', path: `${runPath(run_id)}/cancel` })),
  );

  server.registerTool(
    'resume_run',
    {
      description: 'Resume an interrupted or cancelled run from its checkpoint, or from the node `from`.',
      inputSchema: { run_id: z.string(), from: z.string().optional() },
    },
    async ({ run_id, from }) =>
      answer(
        await api.request({
          method: 'POST',
          path: `${runPath(run_id)}/resume`,
          body: from === undefined ? {} : { from },
        }),
      ),
  );

  server.registerTool(
    'fork_run',
    {
      description:
        "Start a new run from a completed stage of a run (`from`: node or node@visit), optionally with edited DOT source and context values set over that checkpoint's context (the stage is routed again with them).",
      inputSchema: {
        run_id: z.string(),
        from: z.string(),
        dot: z.string().optional(),
        simulate: z.boolean().optional(),
        context: z
          .record(z.string(), z.json())
          .optional()
          .describe("Context values set over the checkpoint's context"),
      },
    },
    async ({ run_id, ...body }) =>
      answer(await api.request({ method: 'POST', path: `${runPath(run_id)}/fork`, body })),
  );

  return server;
}
