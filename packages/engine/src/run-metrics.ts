/**
 * The metrics of runs (`TELEMETRY_METRICS`), recorded from their events on an OpenTelemetry `Meter`: the engine
 * records a run's own with `PipelineTelemetry.meter`, and a process that only sees a run's events (a worker whose
 * runs execute in executor processes) records them the same way. Events only, so the numbers are the same wherever
 * they are counted.
 */
import type { Counter, Histogram, Meter } from '@opentelemetry/api';
import type { PipelineEvent } from './pipeline-event.js';
import { TELEMETRY_ATTRIBUTES as ATTR, TELEMETRY_METRICS } from './pipeline-telemetry.js';

/** Histogram buckets of stage durations, in seconds: LLM and tool stages take from milliseconds to an hour. */
const STAGE_DURATION_BUCKETS = [0.01, 0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800, 3600];

/** How a top-level walk of a run ended, by its last event. */
const WALK_ENDS: Readonly<Partial<Record<PipelineEvent['type'], string>>> = {
  'pipeline.completed': 'success',
  'pipeline.failed': 'fail',
  'pipeline.cancelled': 'cancelled',
  'pipeline.suspended': 'suspended',
  'pipeline.restarted': 'restarted',
};

/** Options of {@link createRunMetrics}. */
export interface RunMetricsOptions {
  /** Where the metrics go (e.g. `metrics.getMeter('my-app')` of `@opentelemetry/api`). */
  readonly meter: Meter;
}

/**
 * Creates the run metrics on `meter` and returns the function to hand every event of the runs to (the events of
 * child pipelines and parallel branches included, as `onEvent` receives them):
 * - `attractor.stage.duration` (seconds): each stage, one visit with its retries, by pipeline, node, handler type and
 *   outcome, at `stage.completed`;
 * - `attractor.stage.retries`: at `stage.retrying`, by pipeline and node;
 * - `attractor.llm.tokens` (by token type) and `attractor.llm.cost_usd` (priced calls): at `agent.usage`, by pipeline
 *   and model;
 * - `attractor.runs`: top-level walks that ended, by pipeline and status (`success`, `fail`, `cancelled`,
 *   `restarted`, and `suspended` where a worker records a suspension).
 *
 * @example
 * const record = createRunMetrics({ meter: metrics.getMeter('my-app') });
 * await runPipeline({ graph, registry, logsRoot, onEvent: record });
 */
export function createRunMetrics(options: RunMetricsOptions): (event: PipelineEvent) => void {
  const { meter } = options;
  const stageDuration: Histogram = meter.createHistogram(TELEMETRY_METRICS.stageDuration, {
    unit: 's',
    description: 'Duration of stages (one visit, its retries included)',
    advice: { explicitBucketBoundaries: STAGE_DURATION_BUCKETS },
  });
  const stageRetries: Counter = meter.createCounter(TELEMETRY_METRICS.stageRetries, {
    description: 'Stage attempts that failed and were retried',
  });
  const llmTokens: Counter = meter.createCounter(TELEMETRY_METRICS.llmTokens, {
    unit: '{token}',
    description: 'LLM tokens used by stages',
  });
  const llmCost: Counter = meter.createCounter(TELEMETRY_METRICS.llmCost, {
    unit: '{USD}',
    description: 'Cost of LLM calls in US dollars (priced models only)',
  });
  const runs: Counter = meter.createCounter(TELEMETRY_METRICS.runs, {
    description: 'Top-level walks of runs that ended, by status',
  });
  /** Per run id (child runs have their own): its pipeline, and the handler type of each running stage. */
  const known = new Map<string, { readonly pipeline: string; readonly handlerTypes: Map<string, string> }>();
  const runOf = (runId: string) => known.get(runId) ?? { pipeline: 'unknown', handlerTypes: new Map() };
  const stageKey = (event: PipelineEvent & { readonly nodeId: string }) =>
    `${(event.branchPath ?? []).join('/')}:${event.nodeId}`;

  return (event) => {
    switch (event.type) {
      case 'pipeline.started':
        known.set(event.runId, { pipeline: event.name, handlerTypes: new Map() });
        return;
      case 'stage.started':
        runOf(event.runId).handlerTypes.set(stageKey(event), event.handlerType);
        return;
      case 'stage.completed': {
        const run = runOf(event.runId);
        const key = stageKey(event);
        stageDuration.record(event.durationMs / 1000, {
          [ATTR.pipeline]: run.pipeline,
          [ATTR.node]: event.nodeId,
          [ATTR.handlerType]: run.handlerTypes.get(key) ?? 'unknown',
          [ATTR.outcome]: event.status,
        });
        run.handlerTypes.delete(key);
        return;
      }
      case 'stage.retrying':
        stageRetries.add(1, { [ATTR.pipeline]: runOf(event.runId).pipeline, [ATTR.node]: event.nodeId });
        return;
      case 'agent.usage': {
        const model = {
          [ATTR.pipeline]: runOf(event.runId).pipeline,
          [ATTR.model]: event.model ?? 'unknown',
        };
        llmTokens.add(event.inputTokens, { ...model, [ATTR.tokenType]: 'input' });
        llmTokens.add(event.outputTokens, { ...model, [ATTR.tokenType]: 'output' });
        if (typeof event.costUsd === 'number') llmCost.add(event.costUsd, model);
        return;
      }
      default: {
        const status = WALK_ENDS[event.type];
        if (status === undefined) return;
        // A child pipeline's walk ends inside its parent's stage: only the runs themselves are counted.
        if (event.branchPath === undefined) {
          runs.add(1, { [ATTR.pipeline]: runOf(event.runId).pipeline, [ATTR.runStatus]: status });
        }
        known.delete(event.runId);
      }
    }
  };
}
