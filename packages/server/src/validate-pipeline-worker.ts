/**
 * The worker thread of {@link validatePipelineInWorker} (validate-pipeline.ts): parses and validates one pipeline
 * off the server's event loop and posts back its node count and diagnostics.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { prepareGraph } from '@attractor/graph';
import { createPipelineFileReader } from './pipeline-files.js';
import type { ValidatePipelineInput, ValidatePipelineOutput } from './validate-pipeline.js';
import { withoutAgentShellTransform } from './without-agent-shell.js';

const input = workerData as ValidatePipelineInput;
const prepared = prepareGraph(input.source, {
  filename: input.filename,
  knownHandlerTypes: input.knownHandlerTypes,
  ...(input.allowTools ? {} : { transforms: [withoutAgentShellTransform] }),
  ...(input.pipelinesDir === undefined
    ? {}
    : { readGraphFile: createPipelineFileReader(input.pipelinesDir) }),
});
const output: ValidatePipelineOutput = {
  nodes: prepared.graph?.nodes.size ?? 0,
  valid:
    prepared.graph !== undefined &&
    !prepared.diagnostics.some((diagnostic) => diagnostic.severity === 'error'),
};
parentPort?.postMessage(output);
