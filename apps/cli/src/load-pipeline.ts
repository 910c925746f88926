import { relative, resolve } from 'node:path';
import {
  type Diagnostic,
  formatDiagnostic,
  type Graph,
  type HandlerLintInfo,
  prepareGraph,
} from '@attractor/graph';
import { cliCommand } from './cli-command.js';
import type { CliIo } from './cli-io.js';
import type { Colors } from './colors.js';
import { CliError } from './errors/cli-error.js';
import { createGraphFileReader, maxFileBytesFromEnv, readSourceFile } from './read-source-file.js';

/** A pipeline ready to run: the graph, its source and the non-blocking diagnostics. */
export interface LoadedPipeline {
  readonly graph: Graph;
  readonly source: string;
  /** The DOT file as given on the command line. */
  readonly path: string;
  readonly warnings: readonly Diagnostic[];
}

/** Options of {@link loadPipeline}. */
export interface LoadPipelineOptions {
  readonly path: string;
  readonly io: CliIo;
  readonly colors: Colors;
  /** Dialect aliases become errors (`--strict`). */
  readonly strict?: boolean;
  /** Handler types the registry runs, for the `type_known` rule. Default: the built-in types. */
  readonly knownHandlerTypes?: Iterable<string>;
  /** What registered handlers declare (attributes, outcomes), by type: `registry.lintInfo()`. Default: none. */
  readonly handlers?: ReadonlyMap<string, HandlerLintInfo>;
  /** The MCP server names `attractor.config.*` defines, for the `mcp_server_known` rule. Default: unchecked. */
  readonly mcpServers?: Iterable<string>;
  /** Print warnings (and infos) to stderr. Default: true. */
  readonly printWarnings?: boolean;
  /** What a file with errors is refused for, in the message "the pipeline was not <refused>". Default: `run`. */
  readonly refused?: 'run' | 'rendered';
  /**
   * Warnings that do not apply to this use of the graph (lint `join_merge` for a run that works in place), left out
   * of what is printed and returned. Default: none.
   */
  readonly inapplicable?: (diagnostic: Diagnostic, graph: Graph) => boolean;
}

/**
 * Reads, parses, transforms and lints a DOT file (spec §9.1) for `run`, `resume` and `render`: prints warnings to
 * stderr and refuses a pipeline with errors.
 *
 * @throws {CliError} `CLI_FILE_NOT_FOUND` for a missing file; `CLI_INVALID_INPUT` (exit 2) when the file has
 *   errors, after printing each like a compiler (`file:line:col`, excerpt with caret, fix).
 */
export async function loadPipeline(options: LoadPipelineOptions): Promise<LoadedPipeline> {
  const { io, colors } = options;
  const maxBytes = maxFileBytesFromEnv(io.env);
  const source = await readSourceFile(options.path, {
    cwd: io.cwd,
    what: 'Pipeline file',
    ...(maxBytes === undefined ? {} : { maxBytes }),
  });
  const filename = displayPath(options.path, io.cwd);
  // The graph keeps the absolute path: handlers resolve files next to it (a manager loop's child DOT file)
  // whatever the working directory is. Diagnostics show the path as the user typed it.
  const absolute = resolve(io.cwd, options.path);
  const prepared = prepareGraph(source, {
    filename: absolute,
    readGraphFile: createGraphFileReader(io.cwd, maxBytes),
    ...(options.strict === undefined ? {} : { strict: options.strict }),
    ...(options.knownHandlerTypes === undefined ? {} : { knownHandlerTypes: options.knownHandlerTypes }),
    ...(options.handlers === undefined ? {} : { handlers: options.handlers }),
    ...(options.mcpServers === undefined ? {} : { mcpServers: options.mcpServers }),
  });
  const graph = prepared.graph;
  const inapplicable = options.inapplicable;
  const diagnostics = prepared.diagnostics
    .filter(
      (diagnostic) =>
        inapplicable === undefined ||
        graph === undefined ||
        diagnostic.severity === 'error' ||
        !inapplicable(diagnostic, graph),
    )
    .map((diagnostic) =>
      diagnostic.span?.filename === absolute
        ? { ...diagnostic, span: { start: diagnostic.span.start, end: diagnostic.span.end, filename } }
        : diagnostic,
    );
  const errors = diagnostics.filter((diagnostic) => diagnostic.severity === 'error');
  const warnings = diagnostics.filter((diagnostic) => diagnostic.severity !== 'error');
  if (options.printWarnings !== false || errors.length > 0) {
    for (const diagnostic of diagnostics) {
      if (diagnostic.severity !== 'error' && options.printWarnings === false) continue;
      io.stderr.write(
        `${colorDiagnostic(formatDiagnostic(diagnostic, source, { filename }), diagnostic, colors)}\n`,
      );
    }
  }
  if (graph === undefined || errors.length > 0) {
    throw new CliError({
      code: 'CLI_INVALID_INPUT',
      message: `${filename}: ${countLabel(errors.length, 'error')}; the pipeline was not ${options.refused ?? 'run'}. Fix the problems above, then check again with \`${cliCommand(io.env)} validate ${filename}\`.`,
    });
  }
  return { graph, source, path: options.path, warnings };
}

/** A path as the user would type it: relative to `cwd` when inside it, else absolute. */
export function displayPath(path: string, cwd: string): string {
  if (!path.startsWith('/')) return path;
  const relativePath = relative(cwd, path);
  return relativePath === '' ? '.' : relativePath.startsWith('..') ? path : relativePath;
}

/** Colours the first line of a formatted diagnostic by severity. */
export function colorDiagnostic(text: string, diagnostic: Diagnostic, colors: Colors): string {
  const newline = text.indexOf('\n');
  const head = newline === -1 ? text : text.slice(0, newline);
  const rest = newline === -1 ? '' : text.slice(newline);
  const paint =
    diagnostic.severity === 'error'
      ? colors.red
      : diagnostic.severity === 'warning'
        ? colors.yellow
        : colors.cyan;
  return `${colors.bold(paint(head))}${rest}`;
}

/** `1 error`, `3 warnings`. */
export function countLabel(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}
