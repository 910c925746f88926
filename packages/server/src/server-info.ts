/**
 * What `GET /server` tells a client about the server, so that the web UI can offer only what works: whether LLM
 * stages are simulated, whether tools are allowed, and which optional features (fork) are there.
 */
import { z } from 'zod';

/**
 * How the server treats LLM stages. `always`: every run is simulated whatever the request says (`attractor serve
 * --simulate`, or the default backend of `startServer`). `required`: no LLM is configured, so a run must ask for
 * `"simulate": true`. `optional`: an LLM is configured and a run may ask to be simulated.
 */
export const simulationModeSchema = z.enum(['always', 'required', 'optional']);

/** See {@link simulationModeSchema}. */
export type SimulationMode = z.infer<typeof simulationModeSchema>;

/** The body of `GET /server`. */
export const serverInfoSchema = z.object({
  simulation: simulationModeSchema,
  /** Whether pipelines with tool nodes, tool hooks, manager loops or sub-pipelines are accepted. */
  allowTools: z.boolean(),
  /** Whether the server has a pipelines directory (`GET /pipeline-files`, `{"file": ...}`). */
  pipelinesDirectory: z.boolean(),
  /** Optional features. `fork`: `POST /pipelines/{id}/fork` exists (it needs the engine's fork). */
  capabilities: z.object({ fork: z.boolean() }),
});

/** See {@link serverInfoSchema}. */
export type ServerInfo = z.infer<typeof serverInfoSchema>;
