/**
 * Request telemetry of the server: a SERVER span per request (`GET /pipelines/:id`, continuing a caller's W3C
 * `traceparent`) and the `http.server.request.duration` histogram, through `@hono/otel`'s middleware on the
 * embedder's tracer and meter; and a hook for an access log.
 */
import type { PipelineTelemetry } from '@attractor/engine';
import { httpInstrumentationMiddleware } from '@hono/otel';
import type { MeterProvider } from '@opentelemetry/api';
import type { MiddlewareHandler } from 'hono';
import { routePath } from 'hono/route';

/** One answered request, for an access log. */
export interface RequestRecord {
  readonly method: string;
  /** The route's pattern (`/pipelines/:id`), never the query string. */
  readonly route: string;
  readonly status: number;
  readonly durationMs: number;
}

/** The middleware that traces and measures requests with `telemetry`'s tracer and meter. */
export function traceRequests(telemetry: PipelineTelemetry): MiddlewareHandler {
  const meter = telemetry.meter;
  const meterProvider: MeterProvider | undefined =
    meter === undefined ? undefined : { getMeter: () => meter };
  return httpInstrumentationMiddleware({
    ...(telemetry.tracer === undefined ? { disableTracing: true } : { tracer: telemetry.tracer }),
    ...(meterProvider === undefined ? {} : { meterProvider }),
  });
}

/** The middleware that reports each answered request to `onRequest` (after the response is made). */
export function reportRequests(
  onRequest: (record: RequestRecord) => void,
  now: () => number,
): MiddlewareHandler {
  return async (c, next) => {
    const startedMs = now();
    try {
      await next();
    } finally {
      onRequest({
        method: c.req.method,
        route: routePath(c),
        status: c.res.status,
        durationMs: now() - startedMs,
      });
    }
  };
}
