/**
 * The spans of one run (see pipeline-telemetry.ts): a span per walk of the run and per stage attempt, with the
 * stage's LLM usage summed from its `agent.usage` events. Internal to the engine; made only when the run has a
 * tracer. The run's metrics come from its events (run-metrics.ts).
 */
import type { Context as TraceContext, Tracer } from '@opentelemetry/api';
import type { Outcome } from './outcome.js';
import {
  TELEMETRY_ATTRIBUTES as ATTR,
  type PipelineTelemetry,
  type StageTelemetry,
} from './pipeline-telemetry.js';
import type { SecretMasker } from './redact-secrets.js';
import { traceApi } from './trace-api.js';

/** How a walk of a run ended, on its span and in the runs metric. */
export type WalkStatus = 'success' | 'fail' | 'cancelled' | 'restarted';

/** The span of one walk of a run. */
export interface RunSpan {
  /** The context holding the span: the parent of the walk's stage spans. */
  readonly context: TraceContext;
  /** Ends the span (once; later calls do nothing). */
  end(status: WalkStatus, reason?: string): void;
  /** Ends the span with an infrastructure fault (the run rejected). */
  fault(error: unknown): void;
}

/** How a stage attempt ended. */
export type AttemptEnd =
  | { readonly kind: 'outcome'; readonly outcome: Outcome; readonly willRetry: boolean }
  | { readonly kind: 'cancelled'; readonly reason: string };

/** The span of one stage attempt. */
export interface StageSpan {
  /** The context holding the stage span: the handler runs in it. */
  readonly context: TraceContext;
  /** What handlers and backends get as `telemetry`. */
  readonly stage: StageTelemetry;
  /** Runs `body` with the stage span as the active context (what it starts nests under the stage). */
  run<TResult>(body: () => TResult): TResult;
  /** Sums an `agent.usage` event of the attempt into the span. */
  recordUsage(usage: StageUsage): void;
  /** Ends the span. */
  end(end: AttemptEnd): void;
}

/** The fields of an `agent.usage` event the telemetry reads. */
export interface StageUsage {
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly model?: string;
  readonly costUsd?: number | 'unknown';
}

/** What a stage span is about. */
export interface StageSpanOptions {
  /** Default: the active context. */
  readonly parent: TraceContext | undefined;
  readonly runId: string;
  readonly pipeline: string;
  readonly nodeId: string;
  readonly handlerType: string;
  readonly index: number;
  readonly visit: number;
  readonly attempt: number;
  readonly branchPath: readonly string[];
}

/** The spans of a run. Internal to the engine. */
export class RunTelemetry {
  readonly #tracer: Tracer;
  readonly #recordContent: boolean;
  readonly #secrets: SecretMasker;

  /** `undefined` when `telemetry` has no tracer. */
  static create(telemetry: PipelineTelemetry | undefined, secrets: SecretMasker): RunTelemetry | undefined {
    if (telemetry?.tracer === undefined) return undefined;
    return new RunTelemetry(telemetry.tracer, telemetry.recordContent ?? false, secrets);
  }

  private constructor(tracer: Tracer, recordContent: boolean, secrets: SecretMasker) {
    this.#tracer = tracer;
    this.#recordContent = recordContent;
    this.#secrets = secrets;
  }

  /** The active context (`context.active()`). */
  activeContext(): TraceContext {
    return traceApi().context.active();
  }

  /** Starts the span of one walk of a run (a start, a resume, a `loop_restart` continuation). */
  startRun(options: {
    readonly parent: TraceContext;
    readonly runId: string;
    readonly pipeline: string;
    readonly resumed: boolean;
  }): RunSpan {
    const api = traceApi();
    const span = this.#tracer.startSpan(
      `run ${options.pipeline}`,
      {
        kind: api.SpanKind.INTERNAL,
        attributes: {
          [ATTR.pipeline]: options.pipeline,
          [ATTR.runId]: options.runId,
          [ATTR.runResumed]: options.resumed,
        },
      },
      options.parent,
    );
    const context = api.trace.setSpan(options.parent, span);
    let ended = false;
    return {
      context,
      end: (status, reason) => {
        if (ended) return;
        ended = true;
        span.setAttribute(ATTR.runStatus, status);
        if (status === 'fail') span.setStatus({ code: api.SpanStatusCode.ERROR, ...this.#message(reason) });
        span.end();
      },
      fault: (error) => {
        if (ended) return;
        ended = true;
        span.setStatus({
          code: api.SpanStatusCode.ERROR,
          ...this.#message(error instanceof Error ? error.message : String(error)),
        });
        span.end();
      },
    };
  }

  /** Starts the span of one stage attempt. */
  startStage(options: StageSpanOptions): StageSpan {
    const api = traceApi();
    const parent = options.parent ?? api.context.active();
    const span = this.#tracer.startSpan(
      `stage ${options.nodeId}`,
      {
        kind: api.SpanKind.INTERNAL,
        attributes: {
          [ATTR.pipeline]: options.pipeline,
          [ATTR.node]: options.nodeId,
          [ATTR.handlerType]: options.handlerType,
          [ATTR.runId]: options.runId,
          [ATTR.stageIndex]: options.index,
          [ATTR.stageVisit]: options.visit,
          [ATTR.stageAttempt]: options.attempt,
          ...(options.branchPath.length === 0 ? {} : { [ATTR.branchPath]: [...options.branchPath] }),
        },
      },
      parent,
    );
    const context = api.trace.setSpan(parent, span);
    const stage: StageTelemetry = { tracer: this.#tracer, context, recordContent: this.#recordContent };
    const usage = { input: 0, output: 0, cost: 0, priced: false, model: undefined as string | undefined };
    return {
      context,
      stage,
      run: (body) => api.context.with(context, body),
      recordUsage: (event) => {
        usage.input += event.inputTokens;
        usage.output += event.outputTokens;
        if (event.model !== undefined) usage.model = event.model;
        if (typeof event.costUsd === 'number') {
          usage.cost += event.costUsd;
          usage.priced = true;
        }
      },
      end: (end) => {
        const outcome = end.kind === 'cancelled' ? 'cancelled' : end.outcome.status;
        span.setAttribute(ATTR.outcome, outcome);
        if (usage.model !== undefined) span.setAttribute(ATTR.model, usage.model);
        if (usage.input > 0 || usage.output > 0) {
          span.setAttribute(ATTR.inputTokens, usage.input);
          span.setAttribute(ATTR.outputTokens, usage.output);
        }
        if (usage.priced) span.setAttribute(ATTR.costUsd, usage.cost);
        if (end.kind === 'outcome') {
          span.setAttribute(ATTR.willRetry, end.willRetry);
          if (end.outcome.status === 'fail') {
            span.setStatus({ code: api.SpanStatusCode.ERROR, ...this.#message(end.outcome.failureReason) });
          }
        }
        span.end();
      },
    };
  }

  /** A span status message: the reason, masked like events. */
  #message(reason: string | undefined): { message?: string } {
    return reason === undefined ? {} : { message: this.#secrets.maskText(reason) };
  }
}
