/**
 * The span of a tool node's command (`tool_command <node id>`), under the stage attempt's span, when the run has a
 * tracer (`runtime.telemetry`): its exit code or signal, and the command line only when the run records content.
 */
import type { HandlerRuntime, SecretMasker } from '@attractor/engine';
import type { SpanStatusCode } from '@opentelemetry/api';

/** `SpanStatusCode.ERROR`, without loading the API module in runs that trace nothing. */
const STATUS_ERROR: SpanStatusCode.ERROR = 2;

/** What the span reads of a finished command. */
export interface TracedCommandRun {
  readonly exitCode?: number | undefined;
  readonly signal?: string | undefined;
  readonly spawnError?: string;
}

/** Options of {@link traceToolCommand}. */
export interface TraceToolCommandOptions {
  readonly runtime: HandlerRuntime;
  readonly nodeId: string;
  readonly command: string;
  readonly secrets: SecretMasker;
}

/**
 * Runs `run` (the command) inside its span and ends the span with the result: `process.exit.code`, or an error
 * status for a command that failed, was killed or could not start. Without a tracer it only runs `run`.
 */
export async function traceToolCommand<TRun extends TracedCommandRun>(
  options: TraceToolCommandOptions,
  run: () => Promise<TRun>,
): Promise<TRun> {
  const telemetry = options.runtime.telemetry;
  if (telemetry === undefined) return run();
  const span = telemetry.tracer.startSpan(
    `tool_command ${options.nodeId}`,
    {
      attributes: {
        'attractor.node.id': options.nodeId,
        'attractor.run.id': options.runtime.runId,
        ...(telemetry.recordContent
          ? { 'process.command_line': options.secrets.maskText(options.command) }
          : {}),
      },
    },
    telemetry.context,
  );
  try {
    const result = await run();
    if (result.exitCode !== undefined) span.setAttribute('process.exit.code', result.exitCode);
    if (result.signal !== undefined) span.setAttribute('attractor.tool.signal', result.signal);
    if (result.spawnError !== undefined) {
      span.setStatus({ code: STATUS_ERROR, message: options.secrets.maskText(result.spawnError) });
    } else if (result.exitCode !== 0) {
      span.setStatus({
        code: STATUS_ERROR,
        message:
          result.exitCode === undefined
            ? `killed by ${result.signal ?? 'a signal'}`
            : `exited with code ${result.exitCode}`,
      });
    }
    return result;
  } finally {
    span.end();
  }
}
