/**
 * What a run reports to OpenTelemetry (`@opentelemetry/api`): the tracer and meter the caller passes in, the context a
 * handler or backend starts its own spans in, and the attribute names of the run's spans and metrics. The engine
 * depends on the API package only; whoever starts the run chooses the SDK and the exporters.
 */
import type { Meter, Context as TraceContext, Tracer } from '@opentelemetry/api';

/**
 * Telemetry of a run (`runPipeline({ telemetry })`). With a `tracer`, the run gets a span (`run <pipeline>`), each
 * stage attempt a child span (`stage <node id>`, parallel branches and child pipelines nested under the stage that
 * started them), and handlers and backends get {@link StageTelemetry} to add theirs (the AI SDK backend's model
 * calls, an agent CLI's process, a tool command). With a `meter`, the run records the metrics of
 * {@link TELEMETRY_METRICS} from its events (`createRunMetrics`). Neither is touched when absent: a run without
 * telemetry costs nothing (it does not even load `@opentelemetry/api`).
 *
 * Spans never hold prompt or response text unless `recordContent` is true; failure reasons are masked like events
 * (`secretValues`). Handlers run with the stage span as the active context (`context.with`), so libraries that
 * start spans from `context.active()` nest under it once a context manager is registered (the OpenTelemetry Node
 * SDK registers one).
 *
 * @example
 * const tracer = trace.getTracer('my-app');
 * await runPipeline({ graph, registry, logsRoot, telemetry: { tracer, meter: metrics.getMeter('my-app') } });
 */
export interface PipelineTelemetry {
  /** Starts the run's and stages' spans. Default: none (no spans). */
  readonly tracer?: Tracer;
  /** Records the run's metrics. Default: none (no metrics). */
  readonly meter?: Meter;
  /**
   * Let spans carry prompt and response text (handlers and backends read it from {@link StageTelemetry}). Default:
   * false.
   */
  readonly recordContent?: boolean;
  /**
   * The parent of the run's span (e.g. a worker's job span, a server request's span). Default: the active context
   * when the run is started (`context.active()`).
   */
  readonly parentContext?: TraceContext;
}

/**
 * What a handler or backend gets to report its own spans under the current stage attempt (`runtime.telemetry`,
 * `request.telemetry`): start them with `tracer.startSpan(name, options, context)`. Absent when the run has no
 * tracer.
 */
export interface StageTelemetry {
  readonly tracer: Tracer;
  /** The context holding the stage attempt's span: the parent of spans started for this attempt. */
  readonly context: TraceContext;
  /** Whether spans may carry prompt and response text (`PipelineTelemetry.recordContent`). */
  readonly recordContent: boolean;
}

/**
 * Attribute names of the run's spans and metrics, the ones to filter on. LLM usage on a stage span sums the stage's
 * `agent.usage` events; the AI SDK's own `chat` spans below it carry the `gen_ai.*` attributes of the OpenTelemetry
 * GenAI conventions.
 */
export const TELEMETRY_ATTRIBUTES = {
  /** The pipeline: the graph's name (`digraph <name>`). */
  pipeline: 'attractor.pipeline',
  /** The run id. */
  runId: 'attractor.run.id',
  /**
   * How the run's walk ended: `success`, `fail`, `cancelled` or `restarted` (a `loop_restart` continued it); the runs
   * metric also counts `suspended`.
   */
  runStatus: 'attractor.run.status',
  /** True when the walk resumed an earlier one (resume, a worker taking a run over, an answered gate). */
  runResumed: 'attractor.run.resumed',
  /** The node id. */
  node: 'attractor.node.id',
  /** The node's resolved handler type (`codergen`, `tool`, `parallel`, ...). */
  handlerType: 'attractor.handler.type',
  /** Step number of the node execution in its walk, from 1. */
  stageIndex: 'attractor.stage.index',
  /** Which visit of the node, from 1. */
  stageVisit: 'attractor.stage.visit',
  /** Which attempt within the visit, from 1. */
  stageAttempt: 'attractor.stage.attempt',
  /** The attempt's outcome status (`success`, `fail`, `retry`, a custom outcome), or `cancelled`. */
  outcome: 'attractor.stage.outcome',
  /** True when a failed attempt is retried. */
  willRetry: 'attractor.stage.will_retry',
  /** The branch ids from the outermost to the innermost, for stages inside parallel branches or child pipelines. */
  branchPath: 'attractor.branch.path',
  /** The model the stage's LLM calls reported. */
  model: 'attractor.llm.model',
  /** Input tokens of the stage's LLM calls. */
  inputTokens: 'attractor.llm.input_tokens',
  /** Output tokens of the stage's LLM calls. */
  outputTokens: 'attractor.llm.output_tokens',
  /** Cost of the stage's LLM calls in US dollars, when priced. */
  costUsd: 'attractor.llm.cost_usd',
  /** `input` or `output`, on the token metric (the GenAI conventions' name). */
  tokenType: 'gen_ai.token.type',
} as const;

/**
 * Names of the metrics a run records with `PipelineTelemetry.meter`. Prometheus names follow OpenTelemetry's
 * Prometheus exporter: dots become underscores and counters end in `_total` (`attractor.stage.retries` →
 * `attractor_stage_retries_total`; `attractor.stage.duration` → the histogram `attractor_stage_duration`, in seconds).
 */
export const TELEMETRY_METRICS = {
  /** Histogram, seconds: each stage's duration (one visit, its retries included), by pipeline, node, handler type and outcome. */
  stageDuration: 'attractor.stage.duration',
  /** Counter: stage attempts retried, by pipeline and node. */
  stageRetries: 'attractor.stage.retries',
  /** Counter, tokens: LLM tokens by pipeline, model and token type (`input`, `output`). */
  llmTokens: 'attractor.llm.tokens',
  /** Counter, US dollars: priced LLM cost by pipeline and model. */
  llmCost: 'attractor.llm.cost_usd',
  /**
   * Counter: top-level walks of runs that ended, by pipeline and status (`success`, `fail`, `cancelled`,
   * `restarted`, and `suspended` where a worker records a suspension at a human gate).
   */
  runs: 'attractor.runs',
} as const;
