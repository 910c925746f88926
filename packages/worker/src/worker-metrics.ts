/**
 * A worker's metrics on an OpenTelemetry `Meter` (`startWorker({ telemetry: { meter } })`): its slots and how many
 * are busy, the queue's runs by state (the queue depth is `queued`), how long runs waited from enqueue to their
 * first start, and its jobs by outcome. The composition root chooses the exporter (the CLI serves them for Prometheus).
 */
import type { Meter } from '@opentelemetry/api';
import type { QueuedRunState } from './queued-run.js';
import type { RunJobOutcome } from './run-job-span.js';
import type { RunQueue } from './run-queue.js';

/** Names of a worker's metrics; in Prometheus dots become underscores and counters end in `_total`. */
export const WORKER_METRICS = {
  /** Gauge: runs this worker executes now. */
  busySlots: 'attractor.worker.busy_slots',
  /** Gauge: runs this worker executes at most (`concurrency`). */
  slots: 'attractor.worker.slots',
  /** Gauge: runs in the queue's table by state (`attractor.run.state`); the same for every process of one queue. */
  queueRuns: 'attractor.queue.runs',
  /** Gauge: runs waiting for a worker (state `queued`). */
  queueDepth: 'attractor.queue.depth',
  /** Histogram, seconds: from a run's enqueue to its first start on a worker. */
  queueLatency: 'attractor.queue.latency',
  /** Counter: run jobs this worker handled, by outcome (`attractor.job.outcome`). */
  jobs: 'attractor.worker.jobs',
} as const;

/** Histogram buckets of the queue latency, in seconds. */
const LATENCY_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600];

/** What the worker records; see {@link observeWorker}. */
export interface WorkerMetrics {
  /** A run started for the first time after waiting this many seconds since its enqueue. */
  waited(seconds: number): void;
  /** A job ended with this outcome. */
  job(outcome: RunJobOutcome): void;
  /** Stops the gauges' callbacks (the worker stopped). */
  stop(): void;
}

/** Registers a worker's metrics on `meter`. */
export function observeWorker(options: {
  readonly meter: Meter;
  readonly queue: Pick<RunQueue, 'countRuns'>;
  readonly slots: number;
  readonly busySlots: () => number;
}): WorkerMetrics {
  const { meter } = options;
  const busy = meter.createObservableGauge(WORKER_METRICS.busySlots, {
    description: 'Runs this worker executes now',
  });
  const slots = meter.createObservableGauge(WORKER_METRICS.slots, {
    description: 'Runs this worker executes at most',
  });
  const runs = meter.createObservableGauge(WORKER_METRICS.queueRuns, {
    description: "Runs in the queue's table by state",
  });
  const depth = meter.createObservableGauge(WORKER_METRICS.queueDepth, {
    description: 'Runs waiting for a worker',
  });
  const latency = meter.createHistogram(WORKER_METRICS.queueLatency, {
    unit: 's',
    description: "Time from a run's enqueue to its first start",
    advice: { explicitBucketBoundaries: LATENCY_BUCKETS },
  });
  const jobs = meter.createCounter(WORKER_METRICS.jobs, { description: 'Run jobs handled, by outcome' });
  const observeSlots = (result: { observe(value: number): void }) => result.observe(options.slots);
  const observeBusy = (result: { observe(value: number): void }) => result.observe(options.busySlots());
  slots.addCallback(observeSlots);
  busy.addCallback(observeBusy);
  const observeQueue = async (result: {
    observe(gauge: typeof runs, value: number, attributes?: Record<string, string>): void;
  }) => {
    // An unreachable queue reports nothing (readiness says why), rather than failing the whole scrape.
    const counts = await options.queue.countRuns().catch(() => undefined);
    if (counts === undefined) return;
    for (const [state, count] of Object.entries(counts) as [QueuedRunState, number][]) {
      result.observe(runs, count, { 'attractor.run.state': state });
    }
    result.observe(depth, counts.queued);
  };
  meter.addBatchObservableCallback(observeQueue, [runs, depth]);
  return {
    waited: (seconds) => latency.record(seconds),
    job: (outcome) => jobs.add(1, { 'attractor.job.outcome': outcome }),
    stop() {
      slots.removeCallback(observeSlots);
      busy.removeCallback(observeBusy);
      meter.removeBatchObservableCallback(observeQueue, [runs, depth]);
    },
  };
}
