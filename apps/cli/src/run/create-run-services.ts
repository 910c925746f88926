/**
 * The composition root of a run: the built-in handlers, the simulation, AI-SDK or routed (`--backend`) backend,
 * and the console interviewer. Only `run` and `resume` load this module, so other commands never load handlers, execa or the
 * AI SDK.
 */
import { CliError } from '../errors/cli-error.js';
import type { RunServices, RunServicesFactory } from './run-services.js';

/** Builds the services of a run from the resolved backend (see {@link RunServicesFactory}). */
export const createRunServices: RunServicesFactory = async (options) => {
  const handlers = await import('@attractor/handlers');
  let script: Awaited<ReturnType<typeof handlers.loadSimulationScript>> | undefined;
  // The pipeline and its sub-pipelines, read once for the three script checks below.
  let pipelineGraphs: Awaited<ReturnType<typeof handlers.loadPipelineGraphs>> | undefined;
  if (options.backend.kind === 'simulate' && options.backend.scriptPath !== undefined) {
    try {
      pipelineGraphs = await handlers.loadPipelineGraphs({ graph: options.graph, workdir: options.workdir });
      // The pipeline's custom outcome words are valid steps too; a word close to a known one is a typo.
      const outcomes = await handlers.pipelineOutcomeWords({
        graph: options.graph,
        workdir: options.workdir,
        pipelineGraphs,
      });
      script = await handlers.loadSimulationScript(options.backend.scriptPath, { outcomes });
      // A step the node it names cannot take (stdout for an LLM stage) would fail there mid-run, and on resume.
      await handlers.checkSimulationScriptSteps({
        script,
        graph: options.graph,
        workdir: options.workdir,
        pipelineGraphs,
        path: options.backend.scriptPath,
      });
    } catch (error) {
      if (handlers.SimulationScriptError.isInstance(error)) {
        throw new CliError({ code: 'CLI_INVALID_INPUT', message: error.message, cause: error });
      }
      throw error;
    }
  }
  // One script for both: the backend answers LLM stages from it, dry-run tool nodes take their output from it.
  const registry = handlers.createDefaultRegistry({
    dryRun: options.backend.kind === 'simulate' && options.backend.dryRun,
    ...(script === undefined ? {} : { script }),
  });
  for (const [type, handler] of options.handlers ?? []) registry.register(type, handler);
  const console =
    options.stdin.isTTY === true
      ? handlers.createConsoleInterviewer({ input: options.stdin, output: options.stdout })
      : undefined;
  const withConsole = (services: Omit<RunServices, 'console' | 'dispose'>): RunServices =>
    console === undefined ? services : { ...services, console, dispose: () => console.close() };
  if (options.backend.kind === 'simulate') {
    const backend = handlers.createSimulationBackend(script === undefined ? {} : { script });
    const scriptPath = options.backend.scriptPath;
    const simulationScript =
      script === undefined || scriptPath === undefined
        ? undefined
        : {
            path: scriptPath,
            check: await handlers.checkSimulationScriptKeys({
              script,
              graph: options.graph,
              workdir: options.workdir,
              ...(pipelineGraphs === undefined ? {} : { pipelineGraphs }),
            }),
          };
    return withConsole({
      registry,
      backend,
      secretValues: [],
      ...(simulationScript === undefined ? {} : { simulationScript }),
    });
  }
  if (options.backend.kind === 'routed') {
    const { createRoutedBackend } = await import('./create-routed-backend.js');
    const backend = await createRoutedBackend({
      choice: options.backend,
      graph: options.graph,
      env: options.env,
    });
    return withConsole({
      registry,
      backend,
      secretValues: options.backend.api === undefined ? [] : [options.backend.api.apiKey],
    });
  }
  const { createAiSdkBackend } = await import('@attractor/backend-ai-sdk');
  const backend = createAiSdkBackend({
    apiKey: options.backend.apiKey,
    env: options.env,
    ...(options.backend.baseURL === undefined ? {} : { baseURL: options.backend.baseURL }),
    ...(options.backend.model === undefined ? {} : { defaultModel: options.backend.model }),
    ...(options.backend.provider === undefined ? {} : { defaultProvider: options.backend.provider }),
  });
  return withConsole({ registry, backend, secretValues: [options.backend.apiKey] });
};
