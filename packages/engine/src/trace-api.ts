/**
 * `@opentelemetry/api`, loaded on first use: only a run with telemetry (`PipelineTelemetry`) loads it, so the
 * ~50 modules of the API cost a run without telemetry nothing (a fresh `attractor run` process starts without them).
 * Its CommonJS build, required synchronously; the API keeps its state in one global shared by every copy.
 */
import { createRequire } from 'node:module';
import type * as TraceApi from '@opentelemetry/api';

let loaded: typeof TraceApi | undefined;

/** The OpenTelemetry API module. Internal to the engine. */
export function traceApi(): typeof TraceApi {
  loaded ??= createRequire(import.meta.url)('@opentelemetry/api') as typeof TraceApi;
  return loaded;
}
