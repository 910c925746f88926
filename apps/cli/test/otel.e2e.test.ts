/**
 * Issue 32 "Traces" with the real command: `attractor run --otel` exports its spans over OTLP/HTTP to a receiver on
 * 127.0.0.1 — a parallel fan-out, an LLM stage on the scripted OpenAI-compatible server, a tool stage — as one tree
 * (run → stage → the AI SDK's model calls) with the attributes to filter on, and no secret and no prompt text in
 * anything it sends. Off by default; on with `--otel` or the standard `OTEL_*` variables.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startScriptedOpenAIServer } from '@attractor/backend-ai-sdk/test';
import { afterEach, describe, expect, it } from 'vitest';
import { attractor, temporaryDirectory } from './helpers/cli.js';
import { type OtlpReceiver, type ReceivedSpan, startOtlpReceiver } from './helpers/otlp-receiver.js';

const KEY = 'sk-otel-e2e-5d2c81f0a9b34e67';
const PROMPT = 'Summarise the quarterly zebra migration';
const PIPELINE = `digraph Traced {
  graph [goal="Ship the report"]
  start [shape=Mdiamond]
  exit  [shape=Msquare]
  fan   [shape=component]
  draft [prompt="${PROMPT} for $goal"]
  lint  [shape=parallelogram, tool_command="echo linted"]
  join  [shape=tripleoctagon]
  start -> fan
  fan -> draft -> join
  fan -> lint -> join
  join -> exit
}`;
const SMALL = `digraph Small {
  start [shape=Mdiamond]
  exit [shape=Msquare]
  work [prompt="Do it"]
  start -> work -> exit
}`;

let receiver: OtlpReceiver | undefined;
afterEach(async () => {
  await receiver?.close();
  receiver = undefined;
});

const named = (spans: readonly ReceivedSpan[], name: string): ReceivedSpan => {
  const found = spans.filter((span) => span.name === name);
  expect(
    found.map((span) => span.name),
    name,
  ).toEqual([name]);
  return found[0]!;
};

describe('attractor run --otel (issue 32)', () => {
  it('exports one trace: run → stages (branches under the fan-out) → the AI SDK model calls, without secrets or prompts', async () => {
    receiver = await startOtlpReceiver();
    const server = await startScriptedOpenAIServer({
      apiKey: KEY,
      script: [
        {
          type: 'tool-calls',
          calls: [{ name: 'write_file', arguments: { file_path: 'report.md', content: 'ok' } }],
        },
        { type: 'text', text: 'Report written.', usage: { inputTokens: 200, outputTokens: 20 } },
      ],
    });
    try {
      const cwd = await temporaryDirectory('attractor-otel-');
      await writeFile(join(cwd, 'traced.dot'), PIPELINE);
      const result = await attractor(
        [
          'run',
          'traced.dot',
          '--otel',
          '--base-url',
          server.baseURL,
          '--model',
          'gpt-test',
          '--logs-dir',
          'run',
          '-q',
        ],
        { cwd, env: { OPENAI_API_KEY: KEY, ...receiver.env } },
      );
      expect(result.stderr).toBe('');
      expect(result.exitCode).toBe(0);
    } finally {
      await server.close();
    }

    const spans = receiver.spans();
    expect(new Set(spans.map((span) => span.traceId)).size).toBe(1);
    const run = named(spans, 'run Traced');
    const fan = named(spans, 'stage fan');
    const draft = named(spans, 'stage draft');
    const lint = named(spans, 'stage lint');
    expect(run.parentSpanId).toBeUndefined();
    expect(fan.parentSpanId).toBe(run.spanId);
    expect(named(spans, 'stage join').parentSpanId).toBe(run.spanId);
    expect(draft.parentSpanId).toBe(fan.spanId);
    expect(lint.parentSpanId).toBe(fan.spanId);
    expect(named(spans, 'tool_command lint').parentSpanId).toBe(lint.spanId);
    const agent = named(spans, 'invoke_agent gpt-test');
    expect(agent.parentSpanId).toBe(draft.spanId);
    const steps = new Set(
      spans.filter((span) => span.parentSpanId === agent.spanId).map((span) => span.spanId),
    );
    const chats = spans.filter((span) => span.name === 'chat gpt-test');
    expect(chats).toHaveLength(2);
    for (const chat of chats) expect(steps.has(chat.parentSpanId ?? '')).toBe(true);

    expect(run.attributes).toMatchObject({
      'attractor.pipeline': 'Traced',
      'attractor.run.id': 'run',
      'attractor.run.status': 'success',
    });
    expect(draft.attributes).toMatchObject({
      'attractor.pipeline': 'Traced',
      'attractor.run.id': 'run',
      'attractor.node.id': 'draft',
      'attractor.handler.type': 'codergen',
      'attractor.stage.outcome': 'success',
      'attractor.llm.model': 'gpt-test',
      'attractor.llm.input_tokens': 210,
      'attractor.llm.output_tokens': 25,
    });
    expect(draft.attributes['attractor.llm.cost_usd']).toBeUndefined();
    expect(lint.attributes).toMatchObject({
      'attractor.handler.type': 'tool',
      'attractor.stage.outcome': 'success',
    });
    expect(chats[1]?.attributes).toMatchObject({
      'gen_ai.request.model': 'gpt-test',
      'gen_ai.usage.input_tokens': 200,
    });
    expect(run.resource['service.name']).toBe('attractor');
    expect(run.resource['process.command_args']).toBeUndefined();

    const sent = receiver.bodies.map((body) => body.text).join('\n');
    expect(sent).not.toContain(KEY);
    expect(sent).not.toContain(PROMPT);
    expect(sent).not.toContain('Report written');
    expect(sent).not.toContain('echo linted');
  });

  it('sends nothing without --otel or an OTEL_* exporter setting, and traces with OTEL_EXPORTER_OTLP_ENDPOINT alone', async () => {
    receiver = await startOtlpReceiver();
    const cwd = await temporaryDirectory('attractor-otel-off-');
    await writeFile(join(cwd, 'small.dot'), SMALL);
    const { OTEL_EXPORTER_OTLP_ENDPOINT: _endpoint, ...withoutEndpoint } = receiver.env;
    const off = await attractor(['run', 'small.dot', '--simulate', '--logs-dir', 'off', '-q'], {
      cwd,
      env: withoutEndpoint,
    });
    expect(off.exitCode).toBe(0);
    expect(receiver.bodies).toEqual([]);

    const on = await attractor(['run', 'small.dot', '--simulate', '--logs-dir', 'on', '-q'], {
      cwd,
      env: receiver.env,
    });
    expect(on.exitCode).toBe(0);
    expect(receiver.spans().map((span) => span.name)).toEqual(
      expect.arrayContaining(['run Small', 'stage start', 'stage work', 'stage exit']),
    );
  });
});
