/**
 * The server's metrics on an OpenTelemetry `Meter`: its runs by state (`attractor.server.runs`: the runs this process
 * executes, or the queue's runs on a shared store). HTTP request durations come from `@hono/otel`'s middleware
 * (`http.server.request.duration`), the runs' own metrics from the engine.
 */
import type { Meter } from '@opentelemetry/api';

/** Names of the server's own metrics. */
export const SERVER_METRICS = {
  /** Gauge: runs by state (`attractor.run.state`). */
  runs: 'attractor.server.runs',
} as const;

/** Registers the runs gauge; `countRuns` is read at each collection (a failure reports nothing). */
export function observeServerRuns(
  meter: Meter,
  countRuns: () => Promise<Readonly<Record<string, number>>> | Readonly<Record<string, number>>,
): () => void {
  const gauge = meter.createObservableGauge(SERVER_METRICS.runs, { description: 'Runs by state' });
  const observe = async (result: { observe(value: number, attributes?: Record<string, string>): void }) => {
    const counts = await Promise.resolve()
      .then(countRuns)
      .catch(() => undefined);
    for (const [state, count] of Object.entries(counts ?? {}))
      result.observe(count, { 'attractor.run.state': state });
  };
  gauge.addCallback(observe);
  return () => gauge.removeCallback(observe);
}
