/**
 * Shared set-up of the worker tests: a throw-away PostgreSQL (tools/postgres-server.mjs), a run catalog on a
 * shared directory, and a `prepare` that parses DOT with the built-in handlers and a simulated LLM.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createFileRunCatalog } from '@attractor/engine';
import { prepareGraph } from '@attractor/graph';
import { createDefaultRegistry, createSimulationBackend } from '@attractor/handlers';
import type { PrepareRun, WorkerRunCatalog } from '../src/index.js';

export {
  postgresAvailableForTests,
  startPostgresServer,
} from '../../../tools/postgres-server.mjs';

/** A temporary directory, removed by the returned `cleanup`. */
export async function tempDir(prefix: string): Promise<{ path: string; cleanup(): Promise<void> }> {
  const path = await mkdtemp(join(tmpdir(), `attractor-worker-${prefix}-`));
  return { path, cleanup: () => rm(path, { recursive: true, force: true }) };
}

/** A run catalog of run directories under `directory` (a shared volume). */
export function directoryCatalog(directory: string): WorkerRunCatalog {
  return createFileRunCatalog(directory);
}

/** Parses the request's DOT; built-in handlers; simulated LLM stages. */
export const prepareSimulated: PrepareRun = async (request) => {
  const { graph, diagnostics } = prepareGraph(request.source, {
    ...(request.filename === undefined ? {} : { filename: request.filename }),
  });
  const errors = diagnostics.filter((diagnostic) => diagnostic.severity === 'error');
  if (graph === undefined || errors.length > 0) {
    throw new Error(`pipeline has errors: ${errors.map((error) => error.message).join('; ')}`);
  }
  return { graph, registry: createDefaultRegistry(), backend: createSimulationBackend() };
};
