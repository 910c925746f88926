import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { CliIo } from '../cli-io.js';
import { type Colors, createColors } from '../colors.js';
import { lintOptionsOf, loadCliConfig } from '../config/load-cli-config.js';
import { countLabel, displayPath, loadPipeline } from '../load-pipeline.js';
import type { SetValue } from '../parse-options.js';
import type { EdgeCoverage, RouteCoverageReport } from '../routes/cover-routes.js';
import { readRunInputs } from '../run/read-run-inputs.js';

/** Options of `attractor test`. */
export interface TestCommandOptions {
  readonly file: string;
  readonly io: CliIo;
  /** One JSON document on stdout. */
  readonly json?: boolean;
  /** Breaks ties between equally good routes. Default: 0. */
  readonly seed?: number;
  /** The most simulated runs. Default: the number of edges plus 5. */
  readonly maxRuns?: number;
  /** Keep the runs' directories here (`run-1`, ...). Default: a temporary directory, removed afterwards. */
  readonly logsDir?: string;
  /** Initial context values of every run. */
  readonly set?: Readonly<Record<string, SetValue>>;
  /** `--input name=value`: the graph's inputs (README "Typed data"), the texts by name, as for `attractor run`. */
  readonly input?: Readonly<Record<string, string>>;
  /** `--inputs-file`: a JSON object of the graph's inputs, as for `attractor run`. */
  readonly inputsFile?: string;
  readonly strict?: boolean;
  /** The plug-in config file (default: `attractor.config.{js,mjs,ts}` in the working directory, if any). */
  readonly config?: string;
}

/**
 * `attractor test <file.dot> --routes`: lints the pipeline (refusing one with errors), runs it in simulation as
 * often as needed to take every edge (loops twice, see `coverRoutes`), and prints the route coverage: the runs, the
 * edges never taken, those no simulated run can take and why, the loops taken once and the human gates never
 * reached. Resolves with 0 when coverage is complete, 1 otherwise.
 *
 * @throws {CliError} (exit 2) for a missing file, a pipeline with errors, or inputs missing or not matching the
 *   graph's `inputs` declaration (the same errors as `attractor run`).
 */
export async function testCommand(options: TestCommandOptions): Promise<number> {
  const { io } = options;
  const colors = createColors(io.color && options.json !== true);
  const config = await loadCliConfig({
    cwd: io.cwd,
    ...(options.config === undefined ? {} : { path: options.config }),
  });
  const pipeline = await loadPipeline({
    path: options.file,
    io,
    colors: createColors(io.color),
    printWarnings: options.json !== true,
    ...lintOptionsOf(config),
    ...(options.strict === undefined ? {} : { strict: options.strict }),
  });
  const { graph } = pipeline;
  // Every simulated run gets the same inputs, checked like `attractor run` checks them before anything runs.
  const inputs = await readRunInputs({
    graph,
    pipelinePath: resolve(io.cwd, pipeline.path),
    io,
    ...(options.input === undefined ? {} : { input: options.input }),
    ...(options.inputsFile === undefined ? {} : { inputsFile: options.inputsFile }),
  });
  const { coverRoutes } = await import('../routes/cover-routes.js');
  const logsDir =
    options.logsDir === undefined
      ? await mkdtemp(join(tmpdir(), 'attractor-test-'))
      : resolve(io.cwd, options.logsDir);
  const seed = options.seed ?? 0;
  let report: RouteCoverageReport;
  try {
    report = await coverRoutes({
      graph,
      workdir: io.cwd,
      logsDir,
      seed,
      maxRuns: options.maxRuns ?? graph.edges.length + 5,
      pluginTypes: config.handlers.keys(),
      ...(options.set === undefined ? {} : { context: options.set }),
      inputs,
    });
  } finally {
    if (options.logsDir === undefined) await rm(logsDir, { recursive: true, force: true });
  }
  const file = displayPath(options.file, io.cwd);
  if (options.json === true) {
    io.stdout.write(`${JSON.stringify({ file, ...report })}\n`);
  } else {
    io.stdout.write(formatReport(report, file, colors));
  }
  return report.complete ? 0 : 1;
}

/** The report as text: a line per run, the edges and gates that miss, and the verdict. */
function formatReport(report: RouteCoverageReport, file: string, colors: Colors): string {
  const lines: string[] = [];
  const taken = report.edges.filter((edge) => edge.taken > 0).length;
  lines.push(
    `Route coverage of ${file}: ${taken} of ${countLabel(report.edges.length, 'edge')} taken in ${countLabel(report.runs.length, 'simulated run')} (seed ${report.seed})`,
  );
  report.runs.forEach((run, index) => {
    const mark = run.status === 'success' ? colors.green('✔') : colors.red('✖');
    const failure = run.failureReason === undefined ? '' : colors.dim(` (${run.failureReason})`);
    lines.push(`  ${mark} run ${index + 1}: ${run.route.join(' → ')}${failure}`);
  });
  const section = (title: string, edges: readonly EdgeCoverage[]) => {
    if (edges.length === 0) return;
    lines.push('', colors.bold(title));
    for (const edge of edges) lines.push(`  ${describeEdge(edge, file)}: ${edge.reason}`);
  };
  section(
    'Edges never taken:',
    report.edges.filter((edge) => edge.state === 'never-taken'),
  );
  section(
    'Edges that cannot be taken:',
    report.edges.filter((edge) => edge.state === 'cannot-be-taken'),
  );
  section(
    'Loops taken once (wanted twice):',
    report.edges.filter((edge) => edge.state === 'loop-once'),
  );
  const unreached = report.gates.filter((gate) => !gate.reached);
  if (unreached.length > 0) {
    lines.push('', colors.bold('Gates never reached:'));
    for (const gate of unreached) {
      lines.push(`  ${gate.line === undefined ? '' : `${file}:${gate.line}: `}${gate.node}`);
    }
  }
  lines.push('');
  if (report.complete) {
    lines.push(
      `${colors.green('✔')} Every edge taken${report.edges.some((edge) => edge.wanted > 1) ? ' (loops twice)' : ''}${report.gates.length > 0 ? ', every gate reached' : ''}.`,
    );
  } else {
    const missing = report.edges.filter((edge) => edge.state !== 'taken');
    const parts = [
      missing.length > 0 ? `${countLabel(missing.length, 'edge')} not covered` : '',
      unreached.length > 0 ? `${countLabel(unreached.length, 'gate')} never reached` : '',
    ].filter(Boolean);
    lines.push(`${colors.red('✖')} Route coverage incomplete: ${parts.join(', ')}.`);
  }
  return `${lines.join('\n')}\n`;
}

/** `pipeline.dot:12: review -> ship [context.last_response contains APPROVED]`. */
function describeEdge(edge: EdgeCoverage, file: string): string {
  const where = edge.line === undefined ? '' : `${file}:${edge.line}: `;
  const condition = edge.condition.trim() === '' ? '' : ` [${edge.condition}]`;
  const label = edge.label.trim() === '' ? '' : ` "${edge.label}"`;
  return `${where}${edge.from} -> ${edge.to}${condition}${label}`;
}
