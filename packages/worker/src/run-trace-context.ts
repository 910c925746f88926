/**
 * A run's trace across machines: `enqueueRun` stores the W3C Trace Context of its span (or of the active context)
 * with the run (`RunRequest.trace`), and every worker that executes the run starts its job's span from it, so the
 * spans of one run's start, suspension and resumption on different workers form one trace. Uses the globally
 * registered propagator of `@opentelemetry/api` (the OpenTelemetry Node SDK registers W3C Trace Context); without
 * one nothing is stored.
 */
import {
  context,
  propagation,
  SpanKind,
  SpanStatusCode,
  type Context as TraceContext,
  type Tracer,
  trace,
} from '@opentelemetry/api';
import { RUN_QUEUE_NAME } from './queue-tables.js';

/** The messaging attributes of the run queue's spans (OpenTelemetry messaging conventions). */
export const RUN_QUEUE_SPAN_ATTRIBUTES = {
  'messaging.system': 'pg-boss',
  'messaging.destination.name': RUN_QUEUE_NAME,
} as const;

/**
 * Runs `send` (the transaction that enqueues run `runId`) inside a `send attractor-runs` PRODUCER span when a tracer
 * is given, and hands it the trace headers to store with the run: the span's, else the active context's.
 */
export async function withEnqueueSpan<TResult>(
  options: { readonly tracer: Tracer | undefined; readonly runId: string },
  send: (trace: Readonly<Record<string, string>> | undefined) => Promise<TResult>,
): Promise<TResult> {
  const span = options.tracer?.startSpan(`send ${RUN_QUEUE_NAME}`, {
    kind: SpanKind.PRODUCER,
    attributes: {
      ...RUN_QUEUE_SPAN_ATTRIBUTES,
      'messaging.operation.type': 'send',
      'attractor.run.id': options.runId,
    },
  });
  const active = span === undefined ? context.active() : trace.setSpan(context.active(), span);
  const carrier: Record<string, string> = {};
  propagation.inject(active, carrier);
  try {
    return await send(Object.keys(carrier).length === 0 ? undefined : carrier);
  } catch (error) {
    span?.setStatus({
      code: SpanStatusCode.ERROR,
      message: error instanceof Error ? error.message : String(error),
    });
    throw error;
  } finally {
    span?.end();
  }
}

/** The W3C Trace Context headers of `context` (for an executor process), or undefined when nothing is traced. */
export function traceHeadersOf(traceContext: TraceContext): Readonly<Record<string, string>> | undefined {
  const carrier: Record<string, string> = {};
  propagation.inject(traceContext, carrier);
  return Object.keys(carrier).length === 0 ? undefined : carrier;
}

/** The trace context stored with a run, or the root context when none was. */
export function storedTraceContext(headers: Readonly<Record<string, string>> | undefined): TraceContext {
  return headers === undefined ? context.active() : propagation.extract(context.active(), headers);
}
