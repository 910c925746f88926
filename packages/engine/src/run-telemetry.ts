/**
 * The spans and metrics of one run (see pipeline-telemetry.ts): a span per walk of the run and per stage attempt,
 * the stage's LLM usage summed from its `agent.usage` events, and the run's metrics. Internal to the engine; made
 * only when the run has a tracer or a meter.
 */
import type { Attributes, Counter, Histogram, Context as TraceContext, Tracer } from '@opentelemetry/api';
import type { Outcome } from './outcome.js';
import {
  TELEMETRY_ATTRIBUTES as ATTR,
  type PipelineTelemetry,
  type StageTelemetry,
  TELEMETRY_METRICS,
} from './pipeline-telemetry.js';
import type { SecretMasker } from './redact-secrets.js';
import { traceApi } from './trace-api.js';

/** How a walk of a run ended, on its span and in the runs metric. */
export type WalkStatus = 'success' | 'fail' | 'cancelled' | 'restarted';

/** The span of one walk of a run. */
export interface RunSpan {
  /** The context holding the span: the parent of the walk's stage spans. */
  readonly context: TraceContext;
  /** Ends the span (once; later calls do nothing) and counts the walk. */
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
  /** The context to run the handler in (the stage span's, or the parent's without a tracer). */
  readonly context: TraceContext;
  /** What handlers and backends get as `telemetry`; absent without a tracer. */
  readonly stage: StageTelemetry | undefined;
  /** Runs `body` with the stage span as the active context (what it starts nests under the stage). */
  run<TResult>(body: () => TResult): TResult;
  /** Sums an `agent.usage` event of the attempt into the span and the LLM metrics. */
  recordUsage(usage: StageUsage): void;
  /** Ends the span and records the attempt's duration. */
  end(end: AttemptEnd, durationMs: number): void;
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

/** Histogram buckets of stage durations, in seconds: LLM and tool stages take from milliseconds to an hour. */
const STAGE_DURATION_BUCKETS = [0.01, 0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800, 3600];

/** The telemetry of a run. Internal to the engine. */
export class RunTelemetry {
  readonly #tracer: Tracer | undefined;
  readonly #recordContent: boolean;
  readonly #secrets: SecretMasker;
  readonly #stageDuration: Histogram | undefined;
  readonly #stageRetries: Counter | undefined;
  readonly #llmTokens: Counter | undefined;
  readonly #llmCost: Counter | undefined;
  readonly #runs: Counter | undefined;

  /** `undefined` when `telemetry` has neither a tracer nor a meter. */
  static create(telemetry: PipelineTelemetry | undefined, secrets: SecretMasker): RunTelemetry | undefined {
    if (telemetry?.tracer === undefined && telemetry?.meter === undefined) return undefined;
    return new RunTelemetry(telemetry, secrets);
  }

  private constructor(telemetry: PipelineTelemetry, secrets: SecretMasker) {
    this.#tracer = telemetry.tracer;
    this.#recordContent = telemetry.recordContent ?? false;
    this.#secrets = secrets;
    const meter = telemetry.meter;
    if (meter !== undefined) {
      this.#stageDuration = meter.createHistogram(TELEMETRY_METRICS.stageDuration, {
        unit: 's',
        description: 'Duration of stage attempts',
        advice: { explicitBucketBoundaries: STAGE_DURATION_BUCKETS },
      });
      this.#stageRetries = meter.createCounter(TELEMETRY_METRICS.stageRetries, {
        description: 'Stage attempts that failed and were retried',
      });
      this.#llmTokens = meter.createCounter(TELEMETRY_METRICS.llmTokens, {
        unit: '{token}',
        description: 'LLM tokens used by stages',
      });
      this.#llmCost = meter.createCounter(TELEMETRY_METRICS.llmCost, {
        unit: '{USD}',
        description: 'Cost of LLM calls in US dollars (priced models only)',
      });
      this.#runs = meter.createCounter(TELEMETRY_METRICS.runs, {
        description: 'Walks of runs that ended, by status',
      });
    }
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
    const span = this.#tracer?.startSpan(
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
    const context = span === undefined ? options.parent : api.trace.setSpan(options.parent, span);
    let ended = false;
    return {
      context,
      end: (status, reason) => {
        if (ended) return;
        ended = true;
        this.#runs?.add(1, { [ATTR.pipeline]: options.pipeline, [ATTR.runStatus]: status });
        if (span === undefined) return;
        span.setAttribute(ATTR.runStatus, status);
        if (status === 'fail') span.setStatus({ code: api.SpanStatusCode.ERROR, ...this.#message(reason) });
        span.end();
      },
      fault: (error) => {
        if (ended) return;
        ended = true;
        if (span === undefined) return;
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
    const base: Attributes = {
      [ATTR.pipeline]: options.pipeline,
      [ATTR.node]: options.nodeId,
      [ATTR.handlerType]: options.handlerType,
    };
    const api = traceApi();
    const parent = options.parent ?? api.context.active();
    const span = this.#tracer?.startSpan(
      `stage ${options.nodeId}`,
      {
        kind: api.SpanKind.INTERNAL,
        attributes: {
          ...base,
          [ATTR.runId]: options.runId,
          [ATTR.stageIndex]: options.index,
          [ATTR.stageVisit]: options.visit,
          [ATTR.stageAttempt]: options.attempt,
          ...(options.branchPath.length === 0 ? {} : { [ATTR.branchPath]: [...options.branchPath] }),
        },
      },
      parent,
    );
    const context = span === undefined ? parent : api.trace.setSpan(parent, span);
    const stage: StageTelemetry | undefined =
      this.#tracer === undefined
        ? undefined
        : { tracer: this.#tracer, context, recordContent: this.#recordContent };
    const usage = { input: 0, output: 0, cost: 0, priced: false, model: undefined as string | undefined };
    return {
      context,
      stage,
      run: (body) => api.context.with(context, body),
      recordUsage: (event) => {
        usage.input += event.inputTokens;
        usage.output += event.outputTokens;
        if (event.model !== undefined) usage.model = event.model;
        const model = { [ATTR.pipeline]: options.pipeline, [ATTR.model]: event.model ?? 'unknown' };
        this.#llmTokens?.add(event.inputTokens, { ...model, [ATTR.tokenType]: 'input' });
        this.#llmTokens?.add(event.outputTokens, { ...model, [ATTR.tokenType]: 'output' });
        if (typeof event.costUsd === 'number') {
          usage.cost += event.costUsd;
          usage.priced = true;
          this.#llmCost?.add(event.costUsd, model);
        }
      },
      end: (end, durationMs) => {
        const outcome = end.kind === 'cancelled' ? 'cancelled' : end.outcome.status;
        this.#stageDuration?.record(durationMs / 1000, { ...base, [ATTR.outcome]: outcome });
        if (end.kind === 'outcome' && end.willRetry) {
          this.#stageRetries?.add(1, { [ATTR.pipeline]: options.pipeline, [ATTR.node]: options.nodeId });
        }
        if (span === undefined) return;
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
