/**
 * Issue 32 "Traces": a real pipeline (parallel fan-out, an LLM stage on the scripted OpenAI-compatible server, a
 * tool stage) traced in-process: the tree run → stage → the AI SDK's model-call spans, the attributes people filter
 * on, and no secret value and no prompt text in any span unless the run records content.
 */
import { join } from 'node:path';
import { runPipeline } from '@attractor/engine';
import { tempDir } from '@attractor/engine/test';
import { prepareGraph } from '@attractor/graph';
import { createDefaultRegistry } from '@attractor/handlers';
import { context } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
  TracerProvider,
} from '@opentelemetry/sdk-trace';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createAiSdkBackend } from '../src/index.js';
import { type ScriptedOpenAIServer, startScriptedOpenAIServer } from '../src/test/index.js';

const API_KEY = 'sk-telemetry-test-4f1c9a7e2b8d6035';
const PROMPT_MARKER = 'Summarise the quarterly zebra migration';
const REPLY_MARKER = 'Zebras crossed the river';
const DOT = `digraph Traced {
  graph [goal="Ship the report"]
  start [shape=Mdiamond]
  exit  [shape=Msquare]
  fan   [shape=component]
  draft [prompt="${PROMPT_MARKER} for $goal", llm_model="gpt-test"]
  lint  [shape=parallelogram, tool_command="echo linted"]
  join  [shape=tripleoctagon]
  start -> fan
  fan -> draft -> join
  fan -> lint -> join
  join -> exit
}`;

const exporter = new InMemorySpanExporter();
const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
const tracer = provider.getTracer('backend-ai-sdk-telemetry-test');
let server: ScriptedOpenAIServer | undefined;

beforeAll(() => {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
});
afterAll(() => context.disable());
afterEach(async () => {
  exporter.reset();
  await server?.close();
  server = undefined;
});

async function tracedRun(recordContent: boolean): Promise<readonly ReadableSpan[]> {
  server = await startScriptedOpenAIServer({
    script: [
      {
        type: 'tool-calls',
        calls: [{ name: 'write_file', arguments: { file_path: 'report.md', content: REPLY_MARKER } }],
      },
      { type: 'text', text: `${REPLY_MARKER}. Done.`, usage: { inputTokens: 120, outputTokens: 30 } },
    ],
  });
  const { graph } = prepareGraph(DOT, { filename: 'traced.dot' });
  const root = tempDir('backend-telemetry-');
  const result = await runPipeline({
    graph: graph!,
    registry: createDefaultRegistry(),
    logsRoot: join(root, 'run'),
    workdir: root,
    backend: createAiSdkBackend({ baseURL: server.baseURL, apiKey: API_KEY, defaultModel: 'gpt-test' }),
    secretValues: [API_KEY],
    telemetry: { tracer, recordContent },
  });
  expect(result.status).toBe('success');
  await provider.forceFlush();
  return exporter.getFinishedSpans();
}

function named(spans: readonly ReadableSpan[], name: string): ReadableSpan {
  const found = spans.filter((span) => span.name === name);
  expect(
    found.map((span) => span.name),
    name,
  ).toEqual([name]);
  return found[0]!;
}
const idOf = (span: ReadableSpan) => span.spanContext().spanId;
const parentOf = (span: ReadableSpan) => span.parentSpanContext?.spanId;
/** Everything a span exports besides its ids: name, attributes, events, links, status. */
const exported = (spans: readonly ReadableSpan[]) =>
  JSON.stringify(
    spans.map((span) => [
      span.name,
      span.attributes,
      span.events,
      span.links,
      span.status,
      span.resource.attributes,
    ]),
  );

describe('a traced pipeline run with the AI SDK backend (issue 32)', () => {
  it('nests the AI SDK model-call spans under the LLM stage, stages under the run, branches under the fan-out', async () => {
    const spans = await tracedRun(false);
    const run = named(spans, 'run Traced');
    const fan = named(spans, 'stage fan');
    const draft = named(spans, 'stage draft');
    const lint = named(spans, 'stage lint');
    expect(parentOf(run)).toBeUndefined();
    expect(parentOf(fan)).toBe(idOf(run));
    expect(parentOf(named(spans, 'stage join'))).toBe(idOf(run));
    expect(parentOf(draft)).toBe(idOf(fan));
    expect(parentOf(lint)).toBe(idOf(fan));
    expect(parentOf(named(spans, 'tool_command lint'))).toBe(idOf(lint));

    const agent = named(spans, 'invoke_agent gpt-test');
    expect(parentOf(agent)).toBe(idOf(draft));
    const steps = spans.filter((span) => span.name.startsWith('step ') && parentOf(span) === idOf(agent));
    expect(steps).toHaveLength(2);
    const chats = spans.filter((span) => span.name === 'chat gpt-test');
    expect(chats).toHaveLength(2);
    for (const chat of chats) expect(steps.map(idOf)).toContain(parentOf(chat));
    expect(parentOf(named(spans, 'execute_tool write_file'))).toBe(idOf(steps[0]!));
    expect(new Set(spans.map((span) => span.spanContext().traceId)).size).toBe(1);

    expect(run.attributes).toMatchObject({
      'attractor.pipeline': 'Traced',
      'attractor.run.status': 'success',
    });
    expect(draft.attributes).toMatchObject({
      'attractor.pipeline': 'Traced',
      'attractor.run.id': 'run',
      'attractor.node.id': 'draft',
      'attractor.handler.type': 'codergen',
      'attractor.stage.outcome': 'success',
      'attractor.llm.model': 'gpt-test',
      'attractor.llm.input_tokens': 130,
      'attractor.llm.output_tokens': 35,
    });
    expect(lint.attributes).toMatchObject({
      'attractor.handler.type': 'tool',
      'attractor.stage.outcome': 'success',
    });
    expect(agent.attributes).toMatchObject({
      'gen_ai.agent.name': 'draft',
      'gen_ai.request.model': 'gpt-test',
    });
    expect(chats.map((chat) => chat.attributes['gen_ai.usage.input_tokens'])).toEqual([10, 120]);
  });

  it('keeps secrets and prompt text out of every span by default, and records prompts with recordContent', async () => {
    const quiet = exported(await tracedRun(false));
    expect(quiet).not.toContain(API_KEY);
    expect(quiet).not.toContain(PROMPT_MARKER);
    expect(quiet).not.toContain(REPLY_MARKER);
    expect(quiet).not.toContain('echo linted');

    const recorded = exported(await tracedRun(true));
    expect(recorded).toContain(PROMPT_MARKER);
    expect(recorded).toContain(REPLY_MARKER);
    expect(recorded).toContain('echo linted');
    expect(recorded).not.toContain(API_KEY);
  });
});
