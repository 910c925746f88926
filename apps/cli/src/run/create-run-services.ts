/**
 * The composition root of a run: the built-in handlers, the simulation, AI-SDK or routed (`--backend`) backend,
 * and the console interviewer. Only `run` and `resume` load this module, so other commands never load handlers, execa or the
 * AI SDK.
 */
import { CliError } from '../errors/cli-error.js';
import { createAiBackend, providerKeys } from './create-ai-backend.js';
import { formatPreflight } from './format-preflight.js';
import { readPrices } from './read-prices.js';
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
  // A resumed or forked run continues each node's steps after the calls it already made.
  const calls = script === undefined ? undefined : options.simulationCalls;
  // One route finder for the whole simulated run: its stages, tool nodes and conditional nodes follow one seed.
  const routes =
    options.backend.kind === 'simulate'
      ? handlers.createRouteFinder(options.backend.seed === undefined ? {} : { seed: options.backend.seed })
      : undefined;
  const registry = handlers.createDefaultRegistry({
    dryRun: options.backend.kind === 'simulate' && options.backend.dryRun,
    ...(routes === undefined ? {} : { routes }),
    ...(script === undefined ? {} : { script }),
    ...(calls === undefined ? {} : { calls }),
  });
  for (const [type, handler] of options.handlers ?? []) registry.register(type, handler);
  const console =
    options.stdin.isTTY === true
      ? handlers.createConsoleInterviewer({ input: options.stdin, output: options.stdout })
      : undefined;
  const withConsole = (services: Omit<RunServices, 'console' | 'dispose'>): RunServices =>
    console === undefined ? services : { ...services, console, dispose: () => console.close() };
  if (options.backend.kind === 'simulate') {
    const backend = handlers.createSimulationBackend({
      ...(script === undefined ? {} : { script }),
      ...(calls === undefined ? {} : { calls }),
      ...(routes === undefined ? {} : { routes }),
    });
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
  if (options.backend.kind === 'plugin')
    return withConsole({ registry, backend: options.backend.backend, secretValues: [] });
  if (options.backend.kind === 'routed') {
    const { createRoutedBackend } = await import('./create-routed-backend.js');
    const prices =
      options.backend.api.pricesPath === undefined
        ? undefined
        : await readPrices(options.backend.api.pricesPath, { env: options.env });
    const backend = await createRoutedBackend({
      choice: options.backend,
      graph: options.graph,
      env: options.env,
      ...(options.mcpServers === undefined ? {} : { mcpServers: options.mcpServers }),
      ...(prices === undefined ? {} : { prices }),
      ...(options.allowShell === undefined ? {} : { allowShell: options.allowShell }),
      handlers: registry.lintInfo(),
    });
    const { mcpSecretValues } = await import('@attractor/backend-ai-sdk');
    const secretValues = [
      ...(await providerKeys(options.env)),
      ...mcpSecretValues(Object.fromEntries(options.mcpServers ?? [])),
    ];
    return withConsole({ registry, backend, secretValues });
  }
  const prices =
    options.backend.pricesPath === undefined
      ? undefined
      : await readPrices(options.backend.pricesPath, { env: options.env });
  const created = await createAiBackend({
    backend: options.backend,
    graph: options.graph,
    env: options.env,
    handlers: registry.lintInfo(),
    ...(prices === undefined ? {} : { prices }),
    ...(options.mcpServers === undefined ? {} : { mcpServers: options.mcpServers }),
  });
  if (!created.ok)
    throw new CliError({
      code: 'CLI_MISSING_API_KEY',
      message:
        options.preflightWording === undefined
          ? formatPreflight(created.problems)
          : formatPreflight(
              created.problems,
              options.preflightWording.closing,
              options.preflightWording.heading,
              options.preflightWording.stageWords,
            ),
    });
  const { backend, secretValues } = created;
  return withConsole({ registry, backend, secretValues });
};
