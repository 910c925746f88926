/**
 * The span of an agent CLI's run for one stage attempt (`invoke_agent <agent>`, kind CLIENT), under the stage's span
 * when the run is traced (`request.telemetry`), with the OpenTelemetry GenAI conventions' attributes: the provider,
 * the requested and reported model, the session id, token usage and cost; the prompt and the final reply only when
 * the run records content.
 */
import type { CodergenRequest, SecretMasker } from '@attractor/engine';
import type { Span, SpanKind, SpanStatusCode } from '@opentelemetry/api';
import type { AgentName } from './agent-name.js';

/** The GenAI conventions' provider of each agent's models. */
const AGENT_PROVIDERS = {
  'claude-code': 'anthropic',
  codex: 'openai',
  'gemini-cli': 'gcp.gemini',
} as const satisfies Record<AgentName, string>;

/** `SpanKind.CLIENT` and `SpanStatusCode.ERROR`, without loading the API module in runs that trace nothing. */
const KIND_CLIENT: SpanKind.CLIENT = 2;
const STATUS_ERROR: SpanStatusCode.ERROR = 2;

/** The span of one agent run; every method does nothing when the run is not traced. */
export interface AgentSpan {
  session(sessionId: string, model: string | undefined): void;
  usage(usage: {
    readonly inputTokens: number;
    readonly outputTokens: number;
    readonly costUsd?: number;
  }): void;
  /** Ends the span: an error status and its message for a failed run; the reply when content is recorded. */
  end(ending: { readonly error?: string; readonly text: string }): void;
}

/** Options of {@link startAgentSpan}. */
export interface StartAgentSpanOptions {
  readonly request: CodergenRequest;
  readonly agent: AgentName;
  /** The prompt sent to the agent. */
  readonly prompt: string;
  /** Masks what the span records (the prompt file's masker). */
  readonly mask: (text: string) => string;
}

const untraced: AgentSpan = { session() {}, usage() {}, end() {} };

/** Starts the agent's span, or returns one that records nothing when the request is not traced. */
export function startAgentSpan(options: StartAgentSpanOptions): AgentSpan {
  const telemetry = options.request.telemetry;
  if (telemetry === undefined) return untraced;
  const { request, agent } = options;
  const model = request.node.llmModel;
  const span: Span = telemetry.tracer.startSpan(
    `invoke_agent ${agent}`,
    {
      kind: KIND_CLIENT,
      attributes: {
        'gen_ai.operation.name': 'invoke_agent',
        'gen_ai.agent.name': agent,
        'gen_ai.provider.name': AGENT_PROVIDERS[agent],
        'attractor.node.id': request.node.id,
        ...(model === undefined ? {} : { 'gen_ai.request.model': model }),
        ...(telemetry.recordContent
          ? { 'gen_ai.input.messages': messages('user', options.mask(options.prompt)) }
          : {}),
      },
    },
    telemetry.context,
  );
  const totals = { input: 0, output: 0, cost: undefined as number | undefined };
  return {
    session(sessionId, reportedModel) {
      span.setAttribute('gen_ai.conversation.id', sessionId);
      if (reportedModel !== undefined) span.setAttribute('gen_ai.response.model', reportedModel);
    },
    usage(usage) {
      totals.input += usage.inputTokens;
      totals.output += usage.outputTokens;
      if (usage.costUsd !== undefined) totals.cost = (totals.cost ?? 0) + usage.costUsd;
    },
    end(ending) {
      span.setAttribute('gen_ai.usage.input_tokens', totals.input);
      span.setAttribute('gen_ai.usage.output_tokens', totals.output);
      if (totals.cost !== undefined) span.setAttribute('attractor.llm.cost_usd', totals.cost);
      if (telemetry.recordContent && ending.text !== '') {
        span.setAttribute('gen_ai.output.messages', messages('assistant', options.mask(ending.text)));
      }
      if (ending.error !== undefined) {
        span.setStatus({ code: STATUS_ERROR, message: options.mask(ending.error) });
      }
      span.end();
    },
  };
}

/** One text message in the GenAI conventions' message format, as the JSON string the attribute holds. */
function messages(role: 'user' | 'assistant', text: string): string {
  return JSON.stringify([{ role, parts: [{ type: 'text', content: text }] }]);
}

/** The masker a span uses: the run's, after the agent environment's own secrets. */
export function spanMask(
  secrets: SecretMasker | undefined,
  maskEnvironment: (text: string) => string,
): (text: string) => string {
  return (text) => (secrets === undefined ? maskEnvironment(text) : secrets.maskText(maskEnvironment(text)));
}
