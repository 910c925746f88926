/**
 * The AI SDK's own OpenTelemetry spans for a stage's model calls (`@ai-sdk/otel`: `invoke_agent`, `step`, `chat`,
 * `execute_tool`, with the `gen_ai.*` attributes of the OpenTelemetry GenAI conventions), on the run's tracer and
 * under the stage attempt's span, when the run is traced (`request.telemetry`). The integration and the API are
 * loaded on the first traced stage: an untraced run loads neither.
 */
import type { OpenTelemetry } from '@ai-sdk/otel';
import type { StageTelemetry } from '@attractor/engine';
import type { Tracer } from '@opentelemetry/api';
import type { TelemetryOptions } from 'ai';

/** One integration per tracer: it keeps per-call state, so it is shared by every stage of the runs on that tracer. */
const integrations = new WeakMap<Tracer, OpenTelemetry>();

/** How a traced stage calls the model. */
export interface AiSdkTelemetry {
  /** The `telemetry` setting of the stage's `streamText` / `generateText` call. */
  readonly settings: TelemetryOptions;
  /** Runs the call with the stage span as the active context, where the integration starts its spans. */
  run<TResult>(call: () => Promise<TResult>): Promise<TResult>;
}

/**
 * The telemetry of a stage's model calls: the OpenTelemetry integration on the stage's tracer (the call's only
 * integration, so globally registered ones do not see it twice), `functionId` the node id (the spans'
 * `gen_ai.agent.name`), and prompts and replies recorded only when the run records content.
 */
export async function aiSdkTelemetry(stage: StageTelemetry, nodeId: string): Promise<AiSdkTelemetry> {
  const [otel, api] = await Promise.all([import('@ai-sdk/otel'), import('@opentelemetry/api')]);
  let integration = integrations.get(stage.tracer);
  if (integration === undefined) {
    integration = new otel.OpenTelemetry({ tracer: stage.tracer });
    integrations.set(stage.tracer, integration);
  }
  return {
    settings: {
      isEnabled: true,
      functionId: nodeId,
      recordInputs: stage.recordContent,
      recordOutputs: stage.recordContent,
      integrations: [integration],
    },
    run: (call) => api.context.with(stage.context, call),
  };
}
