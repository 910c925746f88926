/**
 * The AI SDK's own OpenTelemetry spans for a stage's model calls (`@ai-sdk/otel`: `invoke_agent`, `step`, `chat`,
 * `execute_tool`, with the `gen_ai.*` attributes of the OpenTelemetry GenAI conventions), on the run's tracer and
 * under the stage attempt's span, when the run is traced (`request.telemetry`).
 */
import { OpenTelemetry } from '@ai-sdk/otel';
import type { StageTelemetry } from '@attractor/engine';
import type { Tracer } from '@opentelemetry/api';
import type { TelemetryOptions } from 'ai';

/** One integration per tracer: it keeps per-call state, so it is shared by every stage of the runs on that tracer. */
const integrations = new WeakMap<Tracer, OpenTelemetry>();

/**
 * The `telemetry` setting of a stage's `streamText` / `generateText` call: the OpenTelemetry integration on the
 * stage's tracer (this call's only integration, so globally registered ones do not see it twice), `functionId` the
 * node id (the spans' `gen_ai.agent.name`), and prompts and replies recorded only when the run records content.
 */
export function aiSdkTelemetry(stage: StageTelemetry, nodeId: string): TelemetryOptions {
  let integration = integrations.get(stage.tracer);
  if (integration === undefined) {
    integration = new OpenTelemetry({ tracer: stage.tracer });
    integrations.set(stage.tracer, integration);
  }
  return {
    isEnabled: true,
    functionId: nodeId,
    recordInputs: stage.recordContent,
    recordOutputs: stage.recordContent,
    integrations: [integration],
  };
}
