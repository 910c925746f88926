/**
 * Health endpoints for operators and orchestrators: `GET /healthz` (the process answers), `GET /readyz` (what it
 * depends on is reachable: the run store, the queue) and `GET /metrics` (Prometheus text, from the embedder's
 * exporter). `checkReadiness` is shared with the worker's listener (`attractor worker --metrics-port`).
 */
import type { Hono } from 'hono';

/** One dependency's state in a {@link ReadinessReport}. */
export interface ReadinessCheck {
  readonly ok: boolean;
  /** Why it is not reachable (the error's message), when it is not. */
  readonly error?: string;
}

/** The body of `GET /readyz`: ready when every check passed. */
export interface ReadinessReport {
  readonly ready: boolean;
  readonly checks: Readonly<Record<string, ReadinessCheck>>;
}

/** The body of `GET /metrics` and its content type (Prometheus text exposition format). */
export interface MetricsExposition {
  readonly contentType: string;
  readonly body: string;
}

/** Options of {@link checkReadiness}. */
export interface CheckReadinessOptions {
  /** The probes by name (`store`, `queue`): each resolves when its dependency answers and rejects with why not. */
  readonly probes: Readonly<Record<string, () => Promise<unknown>>>;
  /** A probe that has not answered after this long fails, in milliseconds. Default: 5000. */
  readonly timeoutMs?: number;
  /** Waits `ms` (the server's clock). */
  readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
}

/** Runs every probe at once and reports which answered within the timeout. */
export async function checkReadiness(options: CheckReadinessOptions): Promise<ReadinessReport> {
  const timeoutMs = options.timeoutMs ?? 5000;
  const entries = await Promise.all(
    Object.entries(options.probes).map(async ([name, probe]): Promise<[string, ReadinessCheck]> => {
      const timer = new AbortController();
      try {
        await Promise.race([
          probe(),
          options.sleep(timeoutMs, timer.signal).then(() => {
            throw new Error(`no answer within ${timeoutMs} ms`);
          }),
        ]);
        return [name, { ok: true }];
      } catch (error) {
        return [name, { ok: false, error: error instanceof Error ? error.message : String(error) }];
      } finally {
        timer.abort();
      }
    }),
  );
  return { ready: entries.every(([, check]) => check.ok), checks: Object.fromEntries(entries) };
}

/** What {@link addHealthRoutes} serves. */
export interface ServerHealth {
  /** The readiness report of `GET /readyz` (503 when not ready). */
  readonly ready: () => Promise<ReadinessReport>;
  /** The body of `GET /metrics`; without it the route is not served. */
  readonly metrics?: () => Promise<MetricsExposition>;
}

/** `GET /healthz` and `GET /readyz`, answered without a token (probes carry none; they reveal only up or down). */
export function addHealthRoutes(app: Hono, health: ServerHealth): void {
  app.get('/healthz', (c) => c.json({ status: 'ok' }));
  app.get('/readyz', async (c) => {
    const report = await health.ready();
    return c.json(report, report.ready ? 200 : 503);
  });
}

/** `GET /metrics` (behind the bearer token like the API: it names pipelines and models). */
export function addMetricsRoute(app: Hono, health: ServerHealth): void {
  const metrics = health.metrics;
  if (metrics === undefined) return;
  app.get('/metrics', async (c) => {
    const exposition = await metrics();
    c.header('Content-Type', exposition.contentType);
    return c.body(exposition.body);
  });
}
