/**
 * Plug-ins of the reference CLI (DESIGN.md "Packages"): `attractor.config.{js,mjs,ts}` in the working directory, or
 * the file `--config` names, exports the handlers to register and defaults for run options. `run`, `resume`, `fork`
 * and `validate` load it before they lint the pipeline, so a plug-in handler's declared attributes and outcomes are
 * linted like a built-in's.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { type Handler, HandlerRegistry, isDeclaredHandler } from '@attractor/engine';
import { BUILT_IN_HANDLER_TYPES, type HandlerLintInfo } from '@attractor/graph';
import { CliError } from '../errors/cli-error.js';
import { displayPath } from '../load-pipeline.js';

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
}

/** A loaded config: what the plug-ins add. */
export interface CliConfig {
  /** The config file (absolute), when one was loaded. */
  readonly path?: string;
  /** Handlers by type, registered over the built-ins. */
  readonly handlers: ReadonlyMap<string, Handler>;
  readonly defaults: CliConfigDefaults;
}

/** Handler types lint accepts (built-in and plug-in) and what the plug-in handlers declare. */
export function lintOptionsOf(config: CliConfig): {
  knownHandlerTypes: string[];
  handlers: Map<string, HandlerLintInfo>;
} {
  const registry = new HandlerRegistry();
  for (const [type, handler] of config.handlers) registry.register(type, handler);
  return {
    knownHandlerTypes: [...BUILT_IN_HANDLER_TYPES, ...config.handlers.keys()],
    handlers: registry.lintInfo(),
  };
}

/**
 * Loads `path` (relative to `cwd`), or else the first of {@link CONFIG_FILE_NAMES} in `cwd`; without either, an
 * empty config. The module's default export (or the module itself) may hold:
 *
 * - `handlers`: an array of handlers made with `defineHandler` (registered under their `type`), or an object
 *   `{ type: handler }` (also positional `execute(node, context, graph, logsRoot, runtime)` handlers);
 * - `defaults`: `{ model, provider }`.
 *
 * @throws {CliError} `CLI_FILE_NOT_FOUND` for a `--config` file that does not exist; `CLI_INVALID_INPUT` when the
 *   file throws while loading or exports something else, naming the file and the problem.
 */
export async function loadCliConfig(options: {
  readonly cwd: string;
  readonly path?: string;
}): Promise<CliConfig> {
  const path =
    options.path === undefined
      ? CONFIG_FILE_NAMES.map((name) => resolve(options.cwd, name)).find((candidate) => existsSync(candidate))
      : resolve(options.cwd, options.path);
  if (path === undefined) return { handlers: new Map(), defaults: {} };
  const shown = displayPath(path, options.cwd);
  if (!existsSync(path)) {
    throw new CliError({
      code: 'CLI_FILE_NOT_FOUND',
      message: `Config file ${shown} not found. Pass an existing file with --config, or leave it out.`,
    });
  }
  let module: Record<string, unknown>;
  try {
    module = (await import(pathToFileURL(path).href)) as Record<string, unknown>;
  } catch (error) {
    throw new CliError({
      code: 'CLI_INVALID_INPUT',
      message: `Config file ${shown} failed to load: ${error instanceof Error ? error.message : String(error)}`,
      cause: error,
    });
  }
  const exported = (
    typeof module.default === 'object' && module.default !== null ? module.default : module
  ) as {
    handlers?: unknown;
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
  const defaults = exported.defaults ?? {};
  if (typeof defaults !== 'object' || defaults === null)
    throw invalid('defaults must be an object { model, provider }.');
  const { model, provider } = defaults as { model?: unknown; provider?: unknown };
  for (const [key, value] of [
    ['model', model],
    ['provider', provider],
  ] as const) {
    if (value !== undefined && typeof value !== 'string') throw invalid(`defaults.${key} must be a string.`);
  }
  return {
    path,
    handlers,
    defaults: {
      ...(typeof model === 'string' ? { model } : {}),
      ...(typeof provider === 'string' ? { provider } : {}),
    },
  };
}
