/**
 * Plug-ins of the reference CLI (docs/architecture.md "Packages and layers"): `attractor.config.{js,mjs,ts}`
 * in the working directory, or the file `--config` names, exports the handlers to register, interviewers and
 * LLM backends by name, and defaults for run options. `run`, `resume`, `fork` and `validate` load it before
 * they lint the pipeline, so a plug-in handler's declared attributes and outcomes are linted like a
 * built-in's.
 */
import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { McpServerConfig } from '@attractor/backend-ai-sdk';
import {
  type CodergenBackend,
  type Handler,
  HandlerRegistry,
  type Interviewer,
  isDeclaredHandler,
} from '@attractor/engine';
import { BUILT_IN_HANDLER_TYPES, didYouMean, type HandlerLintInfo } from '@attractor/graph';
import { CliError } from '../errors/cli-error.js';
import { displayPath } from '../load-pipeline.js';
import { maxFileBytesFromEnv, readSourceFile } from '../read-source-file.js';
import { isSandboxKind, SANDBOX_KINDS, type SandboxKind } from '../run/resolve-sandbox.js';
import { describeConfigSyntaxError } from './describe-config-syntax-error.js';
import { readMcpServers } from './read-mcp-servers.js';

/** The workspace modes `defaults.workspace` takes (those of `--workspace`). */
const WORKSPACE_MODES: readonly string[] = ['git', 'copy', 'in-place', 'auto'];

/** The config file names looked for in the working directory, in this order. */
export const CONFIG_FILE_NAMES = [
  'attractor.config.js',
  'attractor.config.mjs',
  'attractor.config.ts',
] as const;

/** Defaults for run options, used where the command line gives none. */
export interface CliConfigDefaults {
  /** Default model of LLM stages (`--model`). */
  readonly model?: string;
  /** Default provider of LLM stages (`--provider`). */
  readonly provider?: string;
  /** The config backend (a key of `backends`) that runs LLM stages when no backend option is given. */
  readonly backend?: string;
  /** The config interviewer (a key of `interviewers`) that answers human gates without `--answer`/`--auto-approve`. */
  readonly interviewer?: string;
  /** Absolute path of the price table (`--prices`), given relative to the config file. */
  readonly prices?: string;
  /** The workspace mode of new runs (`--workspace`): `git`, `copy`, `in-place` or `auto` (README "Workspaces"). */
  readonly workspace?: 'git' | 'copy' | 'in-place' | 'auto';
  /** Absolute path of the directory worktrees go in (`--workspace-root`), given relative to the config file. */
  readonly workspaceRoot?: string;
  /** The author of runs' commits, `Name <email>` (`--commit-author`). */
  readonly commitAuthor?: string;
  /** The sandbox of tool and agent stage commands (`--sandbox`): `bwrap` or `none`. */
  readonly sandbox?: SandboxKind;
}

/** A loaded config: what the plug-ins add. */
export interface CliConfig {
  /** The config file (absolute), when one was loaded. */
  readonly path?: string;
  /** Handlers by type, registered over the built-ins. */
  readonly handlers: ReadonlyMap<string, Handler>;
  /** Interviewers by name (`defaults.interviewer` picks one). */
  readonly interviewers: ReadonlyMap<string, Interviewer>;
  /** LLM backends by name (`defaults.backend` picks one). */
  readonly backends: ReadonlyMap<string, CodergenBackend>;
  /** MCP servers by name, for LLM stages' `mcp_servers` (README "MCP"). */
  readonly mcpServers: ReadonlyMap<string, McpServerConfig>;
  readonly defaults: CliConfigDefaults;
}

const EMPTY_CONFIG: CliConfig = {
  handlers: new Map(),
  interviewers: new Map(),
  backends: new Map(),
  mcpServers: new Map(),
  defaults: {},
};

/** Handler types lint accepts (built-in and plug-in), what the plug-in handlers declare, and the MCP server names. */
export function lintOptionsOf(config: CliConfig): {
  knownHandlerTypes: string[];
  handlers: Map<string, HandlerLintInfo>;
  mcpServers: string[];
} {
  const registry = new HandlerRegistry();
  for (const [type, handler] of config.handlers) registry.register(type, handler);
  return {
    knownHandlerTypes: [...BUILT_IN_HANDLER_TYPES, ...config.handlers.keys()],
    handlers: registry.lintInfo(),
    mcpServers: [...config.mcpServers.keys()],
  };
}

/**
 * Loads `path` (relative to `cwd`), or else the first of {@link CONFIG_FILE_NAMES} in `cwd`; without either, an
 * empty config. The module's default export (or the module itself) may hold:
 *
 * - `handlers`: an array of handlers made with `defineHandler` (registered under their `type`), or an object
 *   `{ type: handler }` (also positional `execute(node, context, graph, logsRoot, runtime)` handlers);
 * - `interviewers`: an object `{ name: interviewer }` (objects with an `ask` function);
 * - `backends`: an object `{ name: backend }` (objects with a `run` function, the `CodergenBackend` contract);
 * - `mcpServers`: an object `{ name: { command, args, env, cwd } | { url, headers, transport } }`, the MCP servers LLM
 *   stages name in `mcp_servers` (README "MCP"); `cwd` is relative to the config file;
 * - `defaults`: `{ model, provider, backend, interviewer, prices, workspace, workspaceRoot, commitAuthor, sandbox }`:
 *   `backend` and `interviewer` name an entry of `backends` / `interviewers`, `prices` is a price-table file and
 *   `workspaceRoot` a directory relative to the config file, `workspace` a workspace mode (README "Workspaces"),
 *   `sandbox` is `bwrap` or `none` (`--sandbox`).
 *
 * @throws {CliError} `CLI_FILE_NOT_FOUND` for a `--config` file that does not exist; `CLI_USAGE` for one that is not
 *   a regular file (a FIFO, `/dev/zero`, a directory) or is over the size limit; `CLI_INVALID_INPUT` when the
 *   file throws while loading (a syntax error with its `file:line:col` and excerpt) or exports something else,
 *   naming the file and the problem (a default naming no plug-in gets the defined names and a near match).
 */
export async function loadCliConfig(options: {
  readonly cwd: string;
  readonly path?: string;
  /** The environment: `ATTRACTOR_MAX_FILE_BYTES` raises the size limit of the config file (default 10 MB). */
  readonly env?: Readonly<Record<string, string | undefined>>;
}): Promise<CliConfig> {
  const path =
    options.path === undefined
      ? CONFIG_FILE_NAMES.map((name) => resolve(options.cwd, name)).find((candidate) => existsSync(candidate))
      : resolve(options.cwd, options.path);
  if (path === undefined) return EMPTY_CONFIG;
  const shown = displayPath(path, options.cwd);
  if (!existsSync(path)) {
    throw new CliError({
      code: 'CLI_FILE_NOT_FOUND',
      message: `Config file ${shown} not found. Pass an existing file with --config, or leave it out.`,
    });
  }
  // Read with the bounds of every file a user names before Node loads it (issue 34 §14): only a regular file of at
  // most 10 MB, so `--config /dev/zero` cannot grow the process and a FIFO cannot block it.
  await readSourceFile(path, {
    cwd: options.cwd,
    what: 'Config file',
    ...(options.env === undefined ? {} : { maxBytes: maxFileBytesFromEnv(options.env) }),
  });
  let module: Record<string, unknown>;
  try {
    module = (await import(pathToFileURL(path).href)) as Record<string, unknown>;
  } catch (error) {
    const syntax = await describeConfigSyntaxError({ error, path, cwd: options.cwd });
    throw new CliError({
      code: 'CLI_INVALID_INPUT',
      message: `Config file ${shown} failed to load: ${syntax ?? (error instanceof Error ? error.message : String(error))}${missingPackageHint(error, displayPath(dirname(path), options.cwd))}`,
      cause: error,
    });
  }
  const exported = (
    typeof module.default === 'object' && module.default !== null ? module.default : module
  ) as {
    handlers?: unknown;
    interviewers?: unknown;
    backends?: unknown;
    mcpServers?: unknown;
    defaults?: unknown;
  };
  const invalid = (what: string) =>
    new CliError({ code: 'CLI_INVALID_INPUT', message: `Config file ${shown}: ${what}` });
  const handlers = new Map<string, Handler>();
  const add = (type: unknown, handler: unknown, where: string) => {
    if (typeof type !== 'string' || type === '')
      throw invalid(`${where} has no handler type; declare it with defineHandler({ type, ... }).`);
    if (
      typeof handler !== 'object' ||
      handler === null ||
      typeof (handler as Handler).execute !== 'function'
    ) {
      throw invalid(`${where} is not a handler: it needs an execute function.`);
    }
    handlers.set(type, handler as Handler);
  };
  if (Array.isArray(exported.handlers)) {
    for (const [index, handler] of exported.handlers.entries()) {
      add(
        isDeclaredHandler(handler as Handler) ? (handler as { type: string }).type : undefined,
        handler,
        `handlers[${index}]`,
      );
    }
  } else if (typeof exported.handlers === 'object' && exported.handlers !== null) {
    for (const [type, handler] of Object.entries(exported.handlers)) add(type, handler, `handlers.${type}`);
  } else if (exported.handlers !== undefined) {
    throw invalid('handlers must be an array of defineHandler(...) results or an object { type: handler }.');
  }
  const interviewers = namedPlugins<Interviewer>(exported.interviewers, 'interviewers', 'ask', invalid);
  const backends = namedPlugins<CodergenBackend>(exported.backends, 'backends', 'run', invalid);
  const mcpServers = readMcpServers(exported.mcpServers, dirname(path), invalid);
  const defaults = exported.defaults ?? {};
  if (typeof defaults !== 'object' || defaults === null)
    throw invalid(
      'defaults must be an object { model, provider, backend, interviewer, prices, workspace, workspaceRoot, commitAuthor, sandbox }.',
    );
  const values = defaults as Record<string, unknown>;
  const strings: Record<string, string> = {};
  for (const key of [
    'model',
    'provider',
    'backend',
    'interviewer',
    'prices',
    'workspace',
    'workspaceRoot',
    'commitAuthor',
    'sandbox',
  ] as const) {
    const value = values[key];
    if (value === undefined) continue;
    if (typeof value !== 'string' || value === '')
      throw invalid(`defaults.${key} must be a non-empty string.`);
    strings[key] = value;
  }
  if (strings.sandbox !== undefined && !isSandboxKind(strings.sandbox)) {
    throw invalid(
      `defaults.sandbox is "${strings.sandbox}"; use one of ${SANDBOX_KINDS.map((kind) => `"${kind}"`).join(', ')}.`,
    );
  }
  if (strings.workspace !== undefined && !WORKSPACE_MODES.includes(strings.workspace)) {
    throw invalid(
      `defaults.workspace is "${strings.workspace}"; use one of ${WORKSPACE_MODES.join(', ')} (README "Workspaces").`,
    );
  }
  for (const [key, plugins] of [
    ['backend', backends],
    ['interviewer', interviewers],
  ] as const) {
    const name = strings[key];
    if (name !== undefined && !plugins.has(name)) {
      const known = [...plugins.keys()];
      const suggestion = didYouMean(name, known);
      throw invalid(
        known.length === 0
          ? `defaults.${key} is "${name}", which ${key}s does not define (the config defines no ${key}s). Add it to ${key}s, or remove defaults.${key}.`
          : `defaults.${key} is "${name}", which ${key}s does not define (it defines ${known.join(', ')}).${suggestion === undefined ? '' : ` Did you mean "${suggestion}"?`}`,
      );
    }
  }
  return {
    path,
    handlers,
    interviewers,
    backends,
    mcpServers,
    defaults: {
      ...(strings.model === undefined ? {} : { model: strings.model }),
      ...(strings.provider === undefined ? {} : { provider: strings.provider }),
      ...(strings.backend === undefined ? {} : { backend: strings.backend }),
      ...(strings.interviewer === undefined ? {} : { interviewer: strings.interviewer }),
      ...(strings.prices === undefined ? {} : { prices: resolve(dirname(path), strings.prices) }),
      ...(strings.workspace === undefined
        ? {}
        : { workspace: strings.workspace as NonNullable<CliConfigDefaults['workspace']> }),
      ...(strings.workspaceRoot === undefined
        ? {}
        : { workspaceRoot: resolve(dirname(path), strings.workspaceRoot) }),
      ...(strings.commitAuthor === undefined ? {} : { commitAuthor: strings.commitAuthor }),
      ...(strings.sandbox === undefined ? {} : { sandbox: strings.sandbox as SandboxKind }),
    },
  };
}

/** Reads `{ name: plugin }`, checking that each entry has the contract's method. */
function namedPlugins<TPlugin>(
  exported: unknown,
  key: 'interviewers' | 'backends',
  method: string,
  invalid: (what: string) => CliError,
): Map<string, TPlugin> {
  const plugins = new Map<string, TPlugin>();
  if (exported === undefined) return plugins;
  if (typeof exported !== 'object' || exported === null || Array.isArray(exported))
    throw invalid(`${key} must be an object { name: ${key === 'backends' ? 'backend' : 'interviewer'} }.`);
  for (const [name, plugin] of Object.entries(exported)) {
    if (
      typeof plugin !== 'object' ||
      plugin === null ||
      typeof (plugin as Record<string, unknown>)[method] !== 'function'
    )
      throw invalid(`${key}.${name} has no ${method} function.`);
    plugins.set(name, plugin as TPlugin);
  }
  return plugins;
}

/**
 * For a config whose import names a package its folder cannot resolve (`ERR_MODULE_NOT_FOUND`, "Cannot find
 * package 'x'"), how to install it there: `npm install <package>`, or for an unreleased build of an
 * `@attractor/*` package the packed tarballs (README "Using the packages outside this repository"). Empty for every
 * other load error.
 */
function missingPackageHint(error: unknown, folder: string): string {
  if ((error as { code?: unknown } | null)?.code !== 'ERR_MODULE_NOT_FOUND') return '';
  const name = /Cannot find package '([^']+)'/.exec(error instanceof Error ? error.message : '')?.[1];
  if (name === undefined) return '';
  const where = folder === '.' ? 'the current directory' : folder;
  if (name.startsWith('@attractor/')) {
    return `\nThe config's imports resolve from its own folder (${where}), which does not have ${name} installed. Run \`npm install ${name}\` there (for an unreleased build, install the packed @attractor/* tarballs: see "Using the packages outside this repository" in the README), or put the config in a project that has them.`;
  }
  return `\nThe config's imports resolve from its own folder (${where}), which does not have ${name} installed: run \`npm install ${name}\` there.`;
}
