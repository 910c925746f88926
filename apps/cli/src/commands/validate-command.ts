import { type Diagnostic, formatDiagnostic, prepareGraph } from '@attractor/graph';
import type { CliIo } from '../cli-io.js';
import { createColors } from '../colors.js';
import { lintOptionsOf, loadCliConfig } from '../config/load-cli-config.js';
import { CliError } from '../errors/cli-error.js';
import { colorDiagnostic, countLabel } from '../load-pipeline.js';
import { createGraphFileReader, maxFileBytesFromEnv, readSourceFile } from '../read-source-file.js';

/** Options of `attractor validate`. */
export interface ValidateCommandOptions {
  readonly files: readonly string[];
  /** One JSON document on stdout instead of compiler-style text. */
  readonly json?: boolean;
  /** Dialect aliases are errors. */
  readonly strict?: boolean;
  /** The plug-in config file (default: `attractor.config.{js,mjs,ts}` in the working directory, if any). */
  readonly config?: string;
  readonly io: CliIo;
}

/** One file's result in `attractor validate --json`. */
export interface ValidatedFile {
  readonly file: string;
  /** False when the file has at least one error (or does not parse). */
  readonly valid: boolean;
  readonly nodes?: number;
  readonly edges?: number;
  readonly diagnostics: readonly Diagnostic[];
}

/**
 * `attractor validate <file.dot>...`: parses, transforms and lints each file (spec §7, §9.1) and prints the
 * diagnostics like a compiler, then a summary line. Exit code 0 when no file has an error, 1 otherwise.
 *
 * @throws {CliError} `CLI_FILE_NOT_FOUND` (exit 2) when a file cannot be read; with several files, after the
 *   readable ones have been validated and reported.
 */
export async function validateCommand(options: ValidateCommandOptions): Promise<number> {
  const { io } = options;
  const colors = createColors(io.color && options.json !== true);
  const results: ValidatedFile[] = [];
  const sources = new Map<string, string>();
  const maxBytes = maxFileBytesFromEnv(io.env);
  const readGraphFile = createGraphFileReader(io.cwd, maxBytes);
  const config = await loadCliConfig({
    cwd: io.cwd,
    env: io.env,
    ...(options.config === undefined ? {} : { path: options.config }),
  });
  const lintOptions = lintOptionsOf(config);
  // A file that cannot be read stops nothing: the others are validated and reported first.
  const unreadable: CliError[] = [];
  for (const file of options.files) {
    let source: string;
    try {
      source = await readSourceFile(file, {
        cwd: io.cwd,
        what: 'Pipeline file',
        ...(maxBytes === undefined ? {} : { maxBytes }),
      });
    } catch (error) {
      if (!CliError.isInstance(error) || options.files.length === 1) throw error;
      unreadable.push(error);
      continue;
    }
    sources.set(file, source);
    const { graph, diagnostics } = prepareGraph(source, {
      filename: file,
      readGraphFile,
      ...lintOptions,
      ...(options.strict === undefined ? {} : { strict: options.strict }),
    });
    results.push({
      file,
      valid: graph !== undefined && !diagnostics.some((diagnostic) => diagnostic.severity === 'error'),
      ...(graph === undefined ? {} : { nodes: graph.nodes.size, edges: graph.edges.length }),
      diagnostics,
    });
  }
  const errors = sum(results, 'error');
  const warnings = sum(results, 'warning');
  if (options.json === true) {
    io.stdout.write(`${JSON.stringify({ valid: errors === 0, errors, warnings, files: results })}\n`);
    throwUnreadable(unreadable);
    return errors === 0 ? 0 : 1;
  }
  for (const result of results) {
    const source = sources.get(result.file);
    for (const diagnostic of result.diagnostics) {
      io.stdout.write(
        `${colorDiagnostic(formatDiagnostic(diagnostic, source, { filename: result.file }), diagnostic, colors)}\n\n`,
      );
    }
    const fileErrors = result.diagnostics.filter((diagnostic) => diagnostic.severity === 'error').length;
    const fileWarnings = result.diagnostics.filter((diagnostic) => diagnostic.severity === 'warning').length;
    const shape =
      result.nodes === undefined
        ? ''
        : ` (${countLabel(result.nodes, 'node')}, ${countLabel(result.edges ?? 0, 'edge')})`;
    const mark = result.valid ? colors.green('✔') : colors.red('✖');
    const findings =
      fileErrors + fileWarnings === 0
        ? 'valid'
        : `${result.valid ? 'valid with ' : ''}${[fileErrors > 0 ? countLabel(fileErrors, 'error') : '', fileWarnings > 0 ? countLabel(fileWarnings, 'warning') : ''].filter(Boolean).join(', ')}`;
    io.stdout.write(`${mark} ${result.file}: ${findings}${shape}\n`);
  }
  if (results.length > 1) {
    const invalid = results.filter((result) => !result.valid).length;
    io.stdout.write(
      `${countLabel(results.length, 'file')} checked: ${countLabel(errors, 'error')}, ${countLabel(warnings, 'warning')}${invalid > 0 ? ` (${invalid} invalid)` : ''}\n`,
    );
  }
  throwUnreadable(unreadable);
  return errors === 0 ? 0 : 1;
}

/** After the readable files are reported: the first unreadable file's error, naming the others too. */
function throwUnreadable(unreadable: readonly CliError[]): void {
  const [first, ...others] = unreadable;
  if (first === undefined) return;
  if (others.length === 0) throw first;
  throw new CliError({
    code: first.code,
    message: [first.message, ...others.map((error) => error.message)].join('\n'),
    cause: first,
  });
}

function sum(results: readonly ValidatedFile[], severity: Diagnostic['severity']): number {
  return results.reduce(
    (total, result) =>
      total + result.diagnostics.filter((diagnostic) => diagnostic.severity === severity).length,
    0,
  );
}
