/**
 * How `attractor worker` turns a queued request into a run: the DOT parsed and linted with the plug-ins of its
 * config file, the backend the request chose (built from the worker's own environment: its keys never come from the
 * queue), all within the worker's policy (worker-policy.ts). Runs in the executor process of each run.
 */
import { PassThrough } from 'node:stream';
import type { CommandSandbox, Interviewer } from '@attractor/engine';
import { prepareGraph } from '@attractor/graph';
import { type PrepareRun, RunRefusedError } from '@attractor/worker';
import type { CliIo } from '../cli-io.js';
import { type CliConfig, lintOptionsOf } from '../config/load-cli-config.js';
import { resolveBackend } from '../run/backend-choice.js';
import type { RunCliOptions } from '../run/run-cli-options.js';
import { checkChildPipelines, checkGraph, checkRequestOptions, type WorkerPolicy } from './worker-policy.js';
import { createWorkerWorkspace, type WorkerWorkspace } from './worker-workspace.js';

/** The worker's own interviewer replaces this one in every run; it is never asked. */
const unusedInterviewer: Interviewer = {
  ask: () => Promise.reject(new Error('the worker asks human gates through the queue')),
};

/**
 * The `prepare` of a worker's runs.
 * @param options.workdirRoot - the shared directory of the runs' working directories (its files are always readable).
 */
export function createWorkerPrepare(options: {
  readonly io: CliIo;
  readonly config: CliConfig;
  readonly policy: WorkerPolicy;
  readonly workdirRoot: string;
  /** The worker's sandbox (`--sandbox`), for every run it executes; the request cannot turn it off. */
  readonly sandbox?: CommandSandbox;
  /** The workspaces of the worker's runs (worker-workspace.ts). */
  readonly workspace: WorkerWorkspace;
}): PrepareRun {
  const { io, config, policy, workdirRoot } = options;
  return async (request) => {
    const choice = (request.options ?? {}) as RunCliOptions;
    checkRequestOptions({ choice, policy, env: io.env, workdirRoot });
    const { parseWorkspaceMode } = await import('@attractor/workspace');
    const requested =
      choice.workspace === undefined ? undefined : parseWorkspaceMode(String(choice.workspace));
    if (choice.workspace !== undefined && requested === undefined) {
      throw new RunRefusedError({
        message: `The run asks for the workspace "${String(choice.workspace)}" (--workspace); ask for git, copy, in-place or auto.`,
      });
    }
    const { withoutAgentShellTransform } = await import('@attractor/server');
    const prepared = prepareGraph(request.source, {
      ...(request.filename === undefined ? {} : { filename: request.filename }),
      ...lintOptionsOf(config),
      // Without --allow-tools an LLM stage's coding agent gets no shell either.
      ...(policy.allowTools ? {} : { transforms: [withoutAgentShellTransform] }),
    });
    const errors = prepared.diagnostics.filter((diagnostic) => diagnostic.severity === 'error');
    if (prepared.graph === undefined || errors.length > 0) {
      throw new Error(
        `${request.filename ?? 'the pipeline'} has errors: ${errors.map((error) => error.message).join('; ')}`,
      );
    }
    const graph = prepared.graph;
    checkChildPipelines({ graph, filename: request.filename, workdir: request.workdir, policy, workdirRoot });
    const { createRunServices } = await import('../run/create-run-services.js');
    const services = await createRunServices({
      backend: resolveBackend(choice, io.env, io.cwd),
      graph,
      interviewer: unusedInterviewer,
      workdir: request.workdir,
      stdin: new PassThrough(),
      stdout: new PassThrough(),
      env: io.env,
      handlers: config.handlers,
      mcpServers: config.mcpServers,
      allowShell: policy.allowTools,
    });
    try {
      await checkGraph({ graph, registry: services.registry, policy, choice });
    } catch (error) {
      services.dispose?.();
      throw error;
    }
    return {
      graph,
      registry: services.registry,
      backend: services.backend,
      secretValues: [...services.secretValues, ...(io.secretValues ?? [])],
      ...(choice.maxSteps === undefined ? {} : { maxSteps: choice.maxSteps }),
      ...(options.sandbox === undefined ? {} : { sandbox: options.sandbox }),
      ...(services.dispose === undefined ? {} : { dispose: services.dispose }),
      workspace: await createWorkerWorkspace(options.workspace, requested),
    };
  };
}
