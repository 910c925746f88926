/**
 * The CLI's OpenTelemetry set-up (the composition root's part; the packages take a tracer and a meter): the
 * OpenTelemetry Node SDK (`@opentelemetry/sdk-node`) configured by the standard `OTEL_*` environment variables,
 * turned on by `--otel` or by an exporter setting in the environment, and for `serve` and `worker` a Prometheus
 * reader (`@opentelemetry/exporter-prometheus`) whose text `/metrics` serves, with or without tracing.
 */
import { readFileSync } from 'node:fs';
import type { PipelineTelemetry } from '@attractor/engine';
import type { MetricsExposition } from '@attractor/server';

/** `--otel` and `--otel-content`, as commander parses them. */
export interface TelemetryCliOptions {
  /** `--otel`. */
  readonly otel?: boolean;
  /** `--otel-content`: `--otel`, and spans may carry prompt and response text. */
  readonly otelContent?: boolean;
}

/** What the commands pass in. */
export interface StartTelemetryOptions {
  /** The command's `--otel` / `--otel-content`. */
  readonly cli: TelemetryCliOptions;
  /** The environment (`OTEL_*`). */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Serve metrics for Prometheus (`serve`, `worker --metrics-port`). */
  readonly prometheus: boolean;
  /** The `service.name` when `OTEL_SERVICE_NAME` sets none, e.g. `attractor-worker`. */
  readonly serviceName: string;
}

/** The telemetry of one command. */
export interface CliTelemetry {
  /** What the engine, the server and the worker get; undefined when neither tracing nor metrics are on. */
  readonly telemetry: PipelineTelemetry | undefined;
  /** The Prometheus text of the metrics, when `prometheus` was asked for. */
  readonly metrics: (() => Promise<MetricsExposition>) | undefined;
  /** Whether spans are exported (`--otel` or the environment). */
  readonly tracing: boolean;
  /** Exports what is left and stops the SDK (before the process exits). */
  shutdown(): Promise<void>;
}

/** The content type of the Prometheus text exposition format. */
const PROMETHEUS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

/**
 * Whether tracing is on: `--otel`, or an exporter chosen in the environment (`OTEL_TRACES_EXPORTER` other than
 * `none`, `OTEL_EXPORTER_OTLP_ENDPOINT` or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`); never with `OTEL_SDK_DISABLED=true`.
 * Pure.
 */
export function tracingRequested(otel: boolean, env: Readonly<Record<string, string | undefined>>): boolean {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return false;
  if (otel) return true;
  const exporter = env.OTEL_TRACES_EXPORTER?.trim();
  return (
    (exporter !== undefined && exporter !== '' && exporter !== 'none') ||
    nonEmpty(env.OTEL_EXPORTER_OTLP_ENDPOINT) ||
    nonEmpty(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT)
  );
}

/**
 * Starts the command's telemetry. Loads nothing when neither tracing nor Prometheus is asked for, so a plain
 * `attractor run` pays nothing.
 */
export async function startTelemetry(options: StartTelemetryOptions): Promise<CliTelemetry> {
  const content = options.cli.otelContent === true;
  const tracing = tracingRequested(options.cli.otel === true || content, options.env);
  if (!tracing && !options.prometheus) {
    return { telemetry: undefined, metrics: undefined, tracing, shutdown: async () => {} };
  }
  const [{ metrics, trace }, { PrometheusExporter, PrometheusSerializer }, sdkMetrics] = await Promise.all([
    import('@opentelemetry/api'),
    import('@opentelemetry/exporter-prometheus'),
    import('@opentelemetry/sdk-metrics'),
  ]);
  // @hono/otel labels request metrics with its own empty service name and version; the resource names the service.
  const views = [
    {
      instrumentName: 'http.server.*',
      attributesProcessors: [
        sdkMetrics.createDenyListAttributesProcessor(['service.name', 'service.version']),
      ],
    },
  ];
  // The exporter's own HTTP server stays off: the server's and the worker's listeners serve its text.
  const prometheus = options.prometheus ? new PrometheusExporter({ preventServerStart: true }) : undefined;
  const exposition =
    prometheus === undefined
      ? undefined
      : async (): Promise<MetricsExposition> => {
          const { resourceMetrics } = await prometheus.collect();
          return {
            contentType: PROMETHEUS_CONTENT_TYPE,
            body: new PrometheusSerializer().serialize(resourceMetrics),
          };
        };
  const version = cliVersion();
  if (tracing) {
    const [{ NodeSDK }, resources] = await Promise.all([
      import('@opentelemetry/sdk-node'),
      import('@opentelemetry/resources'),
    ]);
    const sdk = new NodeSDK({
      ...(nonEmpty(options.env.OTEL_SERVICE_NAME) ? {} : { serviceName: options.serviceName }),
      // Not the default's process detector: its `process.command_args` would put the command line (`--token`,
      // `--set` values) on every span. OTEL_NODE_RESOURCE_DETECTORS still chooses, when set.
      ...(nonEmpty(options.env.OTEL_NODE_RESOURCE_DETECTORS)
        ? {}
        : {
            resourceDetectors: [
              resources.serviceInstanceIdDetector,
              resources.hostDetector,
              resources.osDetector,
              resources.envDetector,
            ],
          }),
      // `serve` and `worker` read their metrics from Prometheus; `run` exports them as OTEL_METRICS_EXPORTER says.
      ...(prometheus === undefined ? {} : { metricReaders: [prometheus] }),
      views,
    });
    sdk.start();
    return {
      telemetry: {
        tracer: trace.getTracer('@attractor/cli', version),
        meter: metrics.getMeter('@attractor/cli', version),
        recordContent: content,
      },
      metrics: exposition,
      tracing,
      shutdown: () => sdk.shutdown().catch(() => undefined),
    };
  }
  const { resourceFromAttributes } = await import('@opentelemetry/resources');
  const provider = new sdkMetrics.MeterProvider({
    views,
    resource: resourceFromAttributes({
      'service.name': options.env.OTEL_SERVICE_NAME ?? options.serviceName,
    }),
    readers: prometheus === undefined ? [] : [prometheus],
  });
  return {
    telemetry: { meter: provider.getMeter('@attractor/cli', version) },
    metrics: exposition,
    tracing,
    shutdown: () => provider.shutdown().catch(() => undefined),
  };
}

function nonEmpty(value: string | undefined): boolean {
  return value !== undefined && value.trim() !== '';
}

/** The CLI's version, for the instrumentation scope. */
function cliVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    readonly version: string;
  };
  return pkg.version;
}
