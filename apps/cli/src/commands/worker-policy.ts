/**
 * What `attractor worker` agrees to execute, decided by the worker's own options and never by the run's request
 * (README "Security"): the LLM endpoints its keys may be sent to (`--allow-base-url`), the providers (`--allow-provider`),
 * whether stages may run shell commands (`--allow-tools`), and the directories whose files a run may make it read
 * (`--allow-dir`: child pipelines, `--simulate-script`, `--prices`). A refused run fails with a {@link RunRefusedError}
 * that names what was asked and the option that would allow it; nothing of it runs and no key is sent.
 */
import { realpathSync } from 'node:fs';
import { dirname, isAbsolute, relative, resolve } from 'node:path';
import type { HandlerRegistry } from '@attractor/engine';
import { childPipelineRef, type Graph, handlerTraits, resolveGraphRef } from '@attractor/graph';
import { RunRefusedError } from '@attractor/worker';
import type { RunCliOptions } from '../run/run-cli-options.js';

/** The worker's policy, from its options. */
export interface WorkerPolicy {
  /** `--allow-tools`: stages may run shell commands. */
  readonly allowTools: boolean;
  /** `--allow-base-url`: endpoints a request's `--base-url` may name (besides the worker's own `OPENAI_BASE_URL`). */
  readonly allowBaseUrls: readonly string[];
  /** `--allow-provider`: the providers LLM stages may use (lower case); undefined: any. */
  readonly allowProviders: readonly string[] | undefined;
  /** `--allow-dir` (absolute): directories whose files a run may read; the workdir root always is one. */
  readonly allowDirs: readonly string[];
}

const REFUSED = "Refused by this worker's policy:";

/** A URL without trailing slashes, for comparing endpoints. */
function normalizeUrl(url: string): string {
  return url.trim().replace(/\/+$/, '');
}

/** The path with symbolic links resolved as far as it exists. */
function realPath(path: string): string {
  try {
    return realpathSync.native(path);
  } catch {
    const parent = dirname(path);
    return parent === path ? path : resolve(realPath(parent), relative(parent, path));
  }
}

function isInside(path: string, directory: string): boolean {
  const rel = relative(realPath(directory), realPath(path));
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

/**
 * Checks what a request's options ask for: the LLM endpoint, the default provider, and the files it names.
 * @param env - the worker's environment (its own `OPENAI_BASE_URL` is always allowed).
 * @throws {RunRefusedError} naming the option asked for and the worker option that would allow it.
 */
export function checkRequestOptions(options: {
  readonly choice: RunCliOptions;
  readonly policy: WorkerPolicy;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly workdirRoot: string;
}): void {
  const { choice, policy } = options;
  if (choice.baseUrl !== undefined) {
    const asked = normalizeUrl(choice.baseUrl);
    const own = options.env.OPENAI_BASE_URL;
    const allowed = [...policy.allowBaseUrls, ...(own === undefined || own === '' ? [] : [own])].map(
      normalizeUrl,
    );
    if (!allowed.includes(asked)) {
      throw new RunRefusedError({
        message: `${REFUSED} the run asks for the LLM endpoint ${asked} (--base-url), which this worker does not send its keys to. Start the worker with --allow-base-url ${asked} to allow it, or enqueue without --base-url.`,
      });
    }
  }
  if (choice.provider !== undefined) checkProvider(choice.provider, policy, '--provider');
  for (const [flag, path] of [
    ['--simulate-script', choice.simulateScript],
    ['--prices', choice.prices],
  ] as const) {
    if (path === undefined) continue;
    checkFile({ path, what: `the ${flag} file`, policy, workdirRoot: options.workdirRoot });
  }
}

function checkProvider(provider: string, policy: WorkerPolicy, where: string): void {
  const allowed = policy.allowProviders;
  if (allowed === undefined || allowed.includes(provider.toLowerCase())) return;
  throw new RunRefusedError({
    message: `${REFUSED} ${where} uses the provider "${provider}", and this worker allows only ${allowed.join(', ')} (--allow-provider). Start the worker with --allow-provider ${provider.toLowerCase()} to allow it.`,
  });
}

function checkFile(options: {
  readonly path: string;
  readonly what: string;
  readonly policy: WorkerPolicy;
  readonly workdirRoot: string;
}): void {
  const directories = [...options.policy.allowDirs, options.workdirRoot];
  if (directories.some((directory) => isInside(options.path, directory))) return;
  throw new RunRefusedError({
    message: `${REFUSED} ${options.what} ${options.path} is outside the directories this worker reads files from (${directories.join(', ')}). Start the worker with --allow-dir ${dirname(options.path)} to allow it.`,
  });
}

/**
 * Checks the child pipeline files the graph's nodes name (`graph_ref`, `stack.child_dotfile`): each must lie in an
 * allowed directory, resolved as the handlers resolve it (next to the DOT file, else in the run's working directory).
 * @throws {RunRefusedError} for the first file outside.
 */
export function checkChildPipelines(options: {
  readonly graph: Graph;
  readonly filename: string | undefined;
  readonly workdir: string;
  readonly policy: WorkerPolicy;
  readonly workdirRoot: string;
}): void {
  for (const node of options.graph.nodes.values()) {
    const child = childPipelineRef(options.graph, node);
    if (child === undefined) continue;
    checkFile({
      path: resolve(options.workdir, resolveGraphRef({ ref: child.ref, parentFilename: options.filename })),
      what: `the child pipeline of node "${node.id}" (${child.key})`,
      policy: options.policy,
      workdirRoot: options.workdirRoot,
    });
  }
}

/**
 * Without `--allow-tools`, refuses a graph whose nodes can run shell commands: handlers that declare `runsCommand`
 * (built in or plug-in, whatever their type is called), tool hooks, and child pipelines (they may hold tool nodes).
 * With `allowProviders`, refuses LLM stages (handlers that declare `callsModel`) on another provider.
 * @throws {RunRefusedError} naming the nodes.
 */
export async function checkGraph(options: {
  readonly graph: Graph;
  readonly registry: HandlerRegistry;
  readonly policy: WorkerPolicy;
  readonly choice: RunCliOptions;
}): Promise<void> {
  const { graph, registry, policy } = options;
  const declared = registry.lintInfo();
  if (!policy.allowTools) {
    const { findShellAccess, describeShellAccess } = await import('@attractor/server');
    const access = findShellAccess({
      graph,
      handlerTypeOf: (nodeId) => {
        const node = graph.node(nodeId)!;
        return registry.resolveType(node) ?? graph.handlerType(node);
      },
      handlers: declared,
    });
    if (access.length > 0) {
      throw new RunRefusedError({
        message: `${REFUSED} the pipeline can run shell commands (${access.map(describeShellAccess).join(', ')}), and this worker does not run them. Start the worker with --allow-tools to allow them.`,
      });
    }
  }
  if (
    policy.allowProviders === undefined ||
    options.choice.simulate === true ||
    options.choice.dryRun === true
  )
    return;
  const { stageModelChoice } = await import('@attractor/backend-ai-sdk');
  for (const node of graph.nodes.values()) {
    if (handlerTraits(graph, node, declared).callsModel !== true) continue;
    const { provider } = stageModelChoice({
      node,
      ...(options.choice.model === undefined ? {} : { defaultModel: options.choice.model }),
      ...(options.choice.provider === undefined ? {} : { defaultProvider: options.choice.provider }),
    });
    if (provider !== undefined) checkProvider(provider, policy, `stage "${node.id}"`);
  }
}
