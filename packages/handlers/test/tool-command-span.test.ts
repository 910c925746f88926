import { SpanStatusCode } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { describe, expect, it } from 'vitest';
import { runDot, tempDir } from './helpers.js';

const exporter = new InMemorySpanExporter();
const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
const tracer = provider.getTracer('tool-command-span-test');

async function toolSpans(command: string, recordContent: boolean) {
  exporter.reset();
  await runDot(
    `digraph G {
      start [shape=Mdiamond]
      exit [shape=Msquare]
      build [shape=parallelogram, tool_command=${JSON.stringify(command)}]
      start -> build -> exit
    }`,
    { workdir: tempDir(), telemetry: { tracer, recordContent }, secretValues: ['hunter2-secret-value'] },
  );
  await provider.forceFlush();
  const spans = exporter.getFinishedSpans();
  const stage = spans.find((span) => span.name === 'stage build');
  const commandSpan = spans.find((span) => span.name === 'tool_command build');
  expect(commandSpan?.parentSpanContext?.spanId).toBe(stage?.spanContext().spanId);
  return commandSpan!;
}

describe('tool_command span (runtime.telemetry)', () => {
  it('records the exit code under the stage span, without the command line by default', async () => {
    const span = await toolSpans('echo hunter2-secret-value; exit 3', false);
    expect(span.attributes['process.exit.code']).toBe(3);
    expect(span.attributes['attractor.node.id']).toBe('build');
    expect(span.attributes['process.command_line']).toBeUndefined();
    expect(span.status).toEqual({ code: SpanStatusCode.ERROR, message: 'exited with code 3' });
  });

  it('records the masked command line when the run records content', async () => {
    const span = await toolSpans('echo hunter2-secret-value', true);
    expect(span.attributes['process.exit.code']).toBe(0);
    expect(span.attributes['process.command_line']).toBe('echo [REDACTED]');
    expect(span.status.code).toBe(SpanStatusCode.UNSET);
  });
});
