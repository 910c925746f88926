/**
 * A real OTLP/HTTP receiver on 127.0.0.1 for the CLI's end-to-end tests: accepts what the OpenTelemetry exporters
 * of a child process send with `OTEL_EXPORTER_OTLP_PROTOCOL=http/json` (`POST /v1/traces`, `/v1/metrics`,
 * `/v1/logs`), keeps every body, and flattens the spans for assertions.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One span as received, flattened: ids in hex, attributes as plain values. */
export interface ReceivedSpan {
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId: string | undefined;
  readonly name: string;
  /** OTLP span kind: 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  readonly kind: number;
  readonly attributes: Readonly<Record<string, unknown>>;
  /** The attributes of the resource that sent it (`service.name`, `service.instance.id`). */
  readonly resource: Readonly<Record<string, unknown>>;
  /** OTLP status code: 0 unset, 1 ok, 2 error. */
  readonly statusCode: number;
}

/** A running receiver. */
export interface OtlpReceiver {
  /** `http://127.0.0.1:<port>`: the value of `OTEL_EXPORTER_OTLP_ENDPOINT`. */
  readonly endpoint: string;
  /** The environment that points a child's exporters here, as OTLP/HTTP JSON. */
  readonly env: Readonly<Record<string, string>>;
  /** Every request body received, as text, by path. */
  readonly bodies: readonly { readonly path: string; readonly text: string }[];
  /** Every span received so far. */
  spans(): ReceivedSpan[];
  close(): Promise<void>;
}

interface OtlpValue {
  readonly stringValue?: string;
  readonly boolValue?: boolean;
  readonly intValue?: string | number;
  readonly doubleValue?: number;
  readonly arrayValue?: { readonly values?: readonly OtlpValue[] };
}
interface OtlpAttribute {
  readonly key: string;
  readonly value: OtlpValue;
}
interface OtlpTraces {
  readonly resourceSpans?: readonly {
    readonly resource?: { readonly attributes?: readonly OtlpAttribute[] };
    readonly scopeSpans?: readonly {
      readonly spans?: readonly {
        readonly traceId: string;
        readonly spanId: string;
        readonly parentSpanId?: string;
        readonly name: string;
        readonly kind: number;
        readonly attributes?: readonly OtlpAttribute[];
        readonly status?: { readonly code?: number };
      }[];
    }[];
  }[];
}

/** Starts a receiver on a free port of 127.0.0.1. */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const bodies: { path: string; text: string }[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      bodies.push({ path: request.url ?? '/', text: Buffer.concat(chunks).toString('utf8') });
      response.writeHead(200, { 'Content-Type': 'application/json' });
      response.end('{}');
    });
  });
  const port = await new Promise<number>((resolve) => {
    server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port));
  });
  const endpoint = `http://127.0.0.1:${port}`;
  return {
    endpoint,
    env: {
      OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      // Quick batches: a long-lived worker's spans arrive while the test waits, not only at its exit.
      OTEL_BSP_SCHEDULE_DELAY: '200',
      OTEL_METRICS_EXPORTER: 'none',
      OTEL_LOGS_EXPORTER: 'none',
    },
    bodies,
    spans: () =>
      bodies
        .filter((body) => body.path === '/v1/traces')
        .flatMap((body) => flattenSpans(JSON.parse(body.text) as OtlpTraces)),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function flattenSpans(traces: OtlpTraces): ReceivedSpan[] {
  return (traces.resourceSpans ?? []).flatMap((resourceSpans) => {
    const resource = attributesOf(resourceSpans.resource?.attributes);
    return (resourceSpans.scopeSpans ?? []).flatMap((scope) =>
      (scope.spans ?? []).map((span) => ({
        traceId: span.traceId,
        spanId: span.spanId,
        parentSpanId:
          span.parentSpanId === undefined || span.parentSpanId === '' ? undefined : span.parentSpanId,
        name: span.name,
        kind: span.kind,
        attributes: attributesOf(span.attributes),
        resource,
        statusCode: span.status?.code ?? 0,
      })),
    );
  });
}

function attributesOf(attributes: readonly OtlpAttribute[] | undefined): Record<string, unknown> {
  return Object.fromEntries(
    (attributes ?? []).map((attribute) => [attribute.key, plainValue(attribute.value)]),
  );
}

function plainValue(value: OtlpValue): unknown {
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.arrayValue !== undefined) return (value.arrayValue.values ?? []).map(plainValue);
  return undefined;
}
