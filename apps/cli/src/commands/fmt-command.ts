import { writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { text } from 'node:stream/consumers';
import { DotSyntaxError } from '@attractor/dot';
import { type Diagnostic, formatDiagnostic, formatPipeline } from '@attractor/graph';
import type { CliIo } from '../cli-io.js';
import { createColors } from '../colors.js';
import { CliError } from '../errors/cli-error.js';
import { colorDiagnostic, countLabel } from '../load-pipeline.js';
import { maxFileBytesFromEnv, readSourceFile } from '../read-source-file.js';

/** Options of `attractor fmt`. */
export interface FmtCommandOptions {
  /** The DOT files; `-` reads standard input and writes the result to standard output. */
  readonly files: readonly string[];
  /** Change nothing: list the files that are not formatted and exit 1 when there is one. */
  readonly check?: boolean;
  readonly io: CliIo;
}

/**
 * `attractor fmt [--check] <file.dot>...`: rewrites each pipeline in the canonical layout (`formatPipeline` of
 * `@attractor/graph`: attribute order, quoting, indentation, comments kept; the graph stays the same). A file already
 * formatted is left untouched. With `--check`, nothing is written: the files that would change are listed and the
 * exit code is 1 when there is one. `-` formats standard input to standard output.
 *
 * A file that does not parse is reported like `attractor validate` reports it (`file:line:col`, excerpt, fix) and
 * left as it is; the other files are still formatted. Exit code 2 then.
 *
 * @throws {CliError} `CLI_FILE_NOT_FOUND` (exit 2) for a file that cannot be read, after the others were formatted.
 */
export async function fmtCommand(options: FmtCommandOptions): Promise<number> {
  const { io } = options;
  const colors = createColors(io.color);
  const maxBytes = maxFileBytesFromEnv(io.env);
  const unformatted: string[] = [];
  const unreadable: CliError[] = [];
  let invalid = 0;
  let written = 0;
  for (const file of options.files) {
    let source: string;
    try {
      source =
        file === '-'
          ? await text(io.stdin)
          : await readSourceFile(file, {
              cwd: io.cwd,
              what: 'Pipeline file',
              ...(maxBytes === undefined ? {} : { maxBytes }),
            });
    } catch (error) {
      if (!CliError.isInstance(error)) throw error;
      unreadable.push(error);
      continue;
    }
    const shown = file === '-' ? '<stdin>' : file;
    let formatted: string;
    try {
      formatted = formatPipeline(source, { filename: shown });
    } catch (error) {
      if (!DotSyntaxError.isInstance(error)) throw error;
      invalid++;
      const diagnostic: Diagnostic = {
        rule: 'dot_syntax',
        severity: 'error',
        message: error.shortMessage,
        fix: error.hint,
        span: error.span,
      };
      io.stderr.write(
        `${colorDiagnostic(formatDiagnostic(diagnostic, source, { filename: shown }), diagnostic, colors)}\n\n`,
      );
      continue;
    }
    if (file === '-') {
      if (options.check === true) {
        if (formatted !== source) unformatted.push(shown);
      } else {
        io.stdout.write(formatted);
      }
      continue;
    }
    if (formatted === source) continue;
    unformatted.push(file);
    if (options.check === true) continue;
    await writeFile(resolve(io.cwd, file), formatted);
    written++;
  }
  if (options.check === true) {
    for (const file of unformatted) io.stdout.write(`${file}\n`);
    if (unformatted.length === 0 && invalid === 0 && unreadable.length === 0) {
      io.stderr.write(`${colors.green('✔')} ${countLabel(options.files.length, 'file')} already formatted\n`);
    } else if (unformatted.length > 0) {
      io.stderr.write(
        `${colors.yellow('✖')} ${countLabel(unformatted.length, 'file')} not formatted; run \`attractor fmt ${unformatted.join(' ')}\` to format ${unformatted.length === 1 ? 'it' : 'them'}.\n`,
      );
    }
  } else if (options.files.some((file) => file !== '-')) {
    const failed = unreadable.length + invalid;
    const checked = options.files.length - failed;
    const counts = `${countLabel(written, 'file')} formatted, ${countLabel(checked - written, 'file')} already formatted`;
    // The green check only when every file was formatted; with failures, the counts (if any file was) and the errors.
    if (failed === 0) io.stderr.write(`${colors.green('✔')} ${counts}\n`);
    else if (checked > 0) io.stderr.write(`${counts}, ${countLabel(failed, 'file')} failed\n`);
  }
  const [first, ...others] = unreadable;
  if (first !== undefined) {
    throw new CliError({
      code: first.code,
      message: [first.message, ...others.map((error) => error.message)].join('\n'),
      cause: first,
    });
  }
  if (invalid > 0) {
    io.stderr.write(
      `${colors.red('error:')} ${countLabel(invalid, 'file')} could not be parsed and ${invalid === 1 ? 'was' : 'were'} left as ${invalid === 1 ? 'it was' : 'they were'}; fix the syntax errors above.\n`,
    );
    return 2;
  }
  return options.check === true && unformatted.length > 0 ? 1 : 0;
}
