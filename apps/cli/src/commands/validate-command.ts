import { type Diagnostic, formatDiagnostic, prepareGraph } from '@attractor/graph';
import type { CliIo } from '../cli-io.js';
import { createColors } from '../colors.js';
import { colorDiagnostic, countLabel } from '../load-pipeline.js';
import { createGraphFileReader, readSourceFile } from '../read-source-file.js';

/** Options of `attractor validate`. */
export interface ValidateCommandOptions {
  readonly files: readonly string[];
  /** One JSON document on stdout instead of compiler-style text. */
  readonly json?: boolean;
  /** Dialect aliases are errors. */
  readonly strict?: boolean;
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
 * @throws {CliError} `CLI_FILE_NOT_FOUND` (exit 2) when a file cannot be read.
 */
export async function validateCommand(options: ValidateCommandOptions): Promise<number> {
  const { io } = options;
  const colors = createColors(io.color && options.json !== true);
  const results: ValidatedFile[] = [];
  const sources = new Map<string, string>();
  const readGraphFile = createGraphFileReader(io.cwd);
  for (const file of options.files) {
    const source = await readSourceFile(file, { cwd: io.cwd, what: 'Pipeline file' });
    sources.set(file, source);
    const { graph, diagnostics } = prepareGraph(source, {
      filename: file,
      readGraphFile,
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
  return errors === 0 ? 0 : 1;
}

function sum(results: readonly ValidatedFile[], severity: Diagnostic['severity']): number {
  return results.reduce(
    (total, result) =>
      total + result.diagnostics.filter((diagnostic) => diagnostic.severity === severity).length,
    0,
  );
}
