import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import type { Writable } from 'node:stream';
import {
  type CodergenBackend,
  Context,
  type JsonValue,
  type Outcome,
  readInputSchema,
} from '@attractor/engine';
import {
  type Diagnostic,
  formatDiagnostic,
  formatPipeline,
  type Graph,
  prepareGraph,
} from '@attractor/graph';
import { cliCommand, quoteArgument } from '../cli-command.js';
import type { CliIo } from '../cli-io.js';
import { type Colors, createColors } from '../colors.js';
import { lintOptionsOf, loadCliConfig } from '../config/load-cli-config.js';
import { CliError } from '../errors/cli-error.js';
import { colorDiagnostic, countLabel, displayPath } from '../load-pipeline.js';
import { authoringPrompt, revisionPrompt } from '../new/authoring-prompt.js';
import { extractDot } from '../new/extract-dot.js';
import { createGraphFileReader } from '../read-source-file.js';
import { configBackend, resolveBackend } from '../run/backend-choice.js';
import type { BackendChoice } from '../run/run-cli-options.js';
import { writeOutputFile } from '../write-output-file.js';

/** Options of `attractor new`. */
export interface NewCommandOptions extends BackendChoice {
  /** What the pipeline should do. */
  readonly description: string;
  readonly io: CliIo;
  /** The DOT file to write. Default: the graph's name in kebab case, `.dot`, in the working directory. */
  readonly output?: string;
  /** Overwrite `output` when it exists. */
  readonly force?: boolean;
  /** The most answers asked of the model. Default: {@link DEFAULT_ROUNDS}. */
  readonly rounds?: number;
  /** Keep each round's prompt, answer and simulated run here (`round-1`, ...). Default: a temporary directory. */
  readonly logsDir?: string;
  /** The plug-in config file (default: `attractor.config.{js,mjs,ts}` in the working directory, if any). */
  readonly config?: string;
}

/** How many answers `attractor new` asks for at most, by default. */
export const DEFAULT_ROUNDS = 3;

/** The one-stage graph whose stage the backend answers: its node gives the model and provider (none: defaults). */
const AUTHOR_GRAPH = `digraph AttractorNew {
  start [shape=Mdiamond]
  exit [shape=Msquare]
  author [label="Write the pipeline"]
  start -> author -> exit
}`;

/** What one round found wrong with the answer, for the next prompt and the user. */
interface RoundVerdict {
  /** The DOT text of the answer, or the whole answer when it held none. */
  readonly draft: string;
  /** The lint diagnostics of the draft (none when it did not parse into a graph). */
  readonly diagnostics: readonly Diagnostic[];
  /** The problems as the model reads them; empty when the draft is clean and reached the exit. */
  readonly problems: string;
  /** A draft with no errors whose simulated run reached the exit, formatted, with its graph and route. */
  readonly usable?: { readonly text: string; readonly graph: Graph; readonly route: readonly string[] };
}

/**
 * `attractor new "<description>" [-o file.dot]`: asks the model (the same backends as `attractor run`: the AI SDK
 * providers, `--backend` agent CLIs, a config file's backend, `--simulate`) to write a pipeline, told the product's
 * own reference (see `authoringPrompt`); lints the answer, and feeds the diagnostics back until the pipeline is clean
 * or `rounds` answers were given. A draft must also reach its exit in one simulated run (`attractor test`'s route
 * finding). The result is formatted like `attractor fmt`, written with an SVG rendering beside it (`name.svg`), and
 * the command prints the route of the simulated run. A draft with warnings only is accepted once the rounds are
 * spent.
 *
 * Resolves with 0 when a pipeline was written, 1 when no answer was usable within the rounds (the last draft is then
 * written to `name.draft.dot` and its problems printed).
 *
 * @throws {CliError} (exit 2) for an existing output file without `force`, a missing API key, a failed model call.
 */
export async function newCommand(options: NewCommandOptions): Promise<number> {
  const { io } = options;
  const colors = createColors(io.color);
  const rounds = options.rounds ?? DEFAULT_ROUNDS;
  const chosenOutput = options.output === undefined ? undefined : resolve(io.cwd, options.output);
  if (chosenOutput !== undefined && options.force !== true && existsSync(chosenOutput)) {
    throw new CliError({
      code: 'CLI_USAGE',
      message: `${displayPath(chosenOutput, io.cwd)} already exists. Pass another -o file, or --force to replace it.`,
    });
  }
  const config = await loadCliConfig({
    cwd: io.cwd,
    ...(options.config === undefined ? {} : { path: options.config }),
  });
  const choice: BackendChoice = {
    ...options,
    ...(options.model === undefined && config.defaults.model !== undefined
      ? { model: config.defaults.model }
      : {}),
    ...(options.provider === undefined && config.defaults.provider !== undefined
      ? { provider: config.defaults.provider }
      : {}),
  };
  const backendChoice = configBackend(choice, config) ?? resolveBackend(choice, io.env, io.cwd);
  const lintOptions = lintOptionsOf(config);
  const authorGraph = prepareGraph(AUTHOR_GRAPH).graph!;
  const logsDir =
    options.logsDir === undefined
      ? await mkdtemp(join(tmpdir(), 'attractor-new-'))
      : resolve(io.cwd, options.logsDir);
  // The agent's own working directory: whatever its tools do stays out of the project.
  const workdir = join(logsDir, 'workdir');
  await mkdir(workdir, { recursive: true });
  const { createRunServices } = await import('../run/create-run-services.js');
  const { createAutoApproveInterviewer } = await import('@attractor/handlers');
  const services = await createRunServices({
    backend: backendChoice,
    graph: authorGraph,
    interviewer: createAutoApproveInterviewer(),
    workdir,
    stdin: io.stdin,
    stdout: io.stdout as unknown as Writable,
    env: io.env,
    handlers: config.handlers,
    preflightWording: {
      heading: 'The model cannot be asked for a pipeline:',
      closing: '',
      stageWords: 'the model that writes the pipeline',
    },
  });
  const example = await readFile(new URL('../../templates/new/example.dot', import.meta.url), 'utf8');
  // Lint resolves graph_ref and prompt files next to the file the pipeline goes to.
  const lintFilename = chosenOutput ?? join(io.cwd, 'pipeline.dot');
  let verdict: RoundVerdict | undefined;
  let accepted: RoundVerdict['usable'];
  try {
    for (let round = 1; round <= rounds && accepted === undefined; round++) {
      const prompt =
        verdict === undefined
          ? authoringPrompt({
              description: options.description,
              example,
              pluginHandlers: new Map(
                [...lintOptions.handlers].filter(([type]) => config.handlers.has(type)),
              ),
            })
          : revisionPrompt({
              description: options.description,
              draft: verdict.draft,
              problems: verdict.problems,
            });
      io.stdout.write(
        `${colors.dim(`Round ${round} of ${rounds}: ${round === 1 ? 'asking the model for a pipeline' : 'asking the model to fix it'}…`)}\n`,
      );
      const answer = await ask(services.backend, {
        graph: authorGraph,
        prompt,
        stageDir: join(logsDir, `round-${round}`),
        workdir,
      });
      verdict = await judge(answer, {
        filename: lintFilename,
        cwd: io.cwd,
        lintOptions,
        pluginTypes: config.handlers.keys(),
        simulationDir: join(logsDir, `round-${round}`, 'simulation'),
      });
      if (verdict.problems === '') {
        accepted = verdict.usable;
        break;
      }
      io.stdout.write(`  ${summarize(verdict)}\n`);
      if (verdict.usable !== undefined && round === rounds) accepted = verdict.usable;
    }
  } finally {
    services.dispose?.();
    if (options.logsDir === undefined) await rm(logsDir, { recursive: true, force: true });
  }
  if (accepted === undefined) return refuse(verdict!, { io, colors, rounds, output: chosenOutput });
  const output = chosenOutput ?? freeName(join(io.cwd, `${kebabCase(accepted.graph.id)}.dot`));
  await writeOutputFile({
    path: output,
    text: accepted.text,
    shown: displayPath(output, io.cwd),
    flag: '-o',
  });
  const svgPath = join(dirname(output), `${basename(output, '.dot')}.svg`);
  const { renderSvg } = await import('../render/render-svg.js');
  await writeOutputFile({
    path: svgPath,
    text: await renderSvg(accepted.graph, { name: displayPath(output, io.cwd) }),
    shown: displayPath(svgPath, io.cwd),
    flag: '-o',
  });
  for (const diagnostic of verdict!.diagnostics) {
    io.stderr.write(
      `${colorDiagnostic(formatDiagnostic(diagnostic, accepted.text, { filename: displayPath(output, io.cwd) }), diagnostic, colors)}\n`,
    );
  }
  const shown = displayPath(output, io.cwd);
  io.stdout.write(
    [
      `${colors.green('✔')} wrote ${shown} (${countLabel(accepted.graph.nodes.size, 'node')}, ${countLabel(accepted.graph.edges.length, 'edge')}) and ${displayPath(svgPath, io.cwd)}`,
      `${colors.green('✔')} a simulated run reached the exit: ${accepted.route.join(' → ')}`,
      `Next: ${cliCommand(io.env)} test ${quoteArgument(shown)} --routes, then ${cliCommand(io.env)} run ${quoteArgument(shown)}`,
      '',
    ].join('\n'),
  );
  return 0;
}

/** One answer of the backend: its text (`response.md` of the stage directory when the backend returns an Outcome). */
async function ask(
  backend: CodergenBackend,
  options: {
    readonly graph: Graph;
    readonly prompt: string;
    readonly stageDir: string;
    readonly workdir: string;
  },
): Promise<string> {
  await mkdir(options.stageDir, { recursive: true });
  let result: string | Outcome;
  try {
    result = await backend.run({
      node: options.graph.node('author')!,
      graph: options.graph,
      prompt: options.prompt,
      context: new Context(),
      // Each round's prompt holds everything: a fresh conversation, whatever the backend keeps.
      fidelity: 'compact',
      threadKey: 'author',
      preamble: '',
      abortSignal: new AbortController().signal,
      stageDir: options.stageDir,
      workdir: options.workdir,
      emit: () => {},
      takeSteering: async () => [],
    });
  } catch (error) {
    throw new CliError({
      code: 'CLI_INVALID_INPUT',
      message: `The model call failed: ${(error as Error).message}`,
      cause: error,
    });
  }
  if (typeof result === 'string') return result;
  if (result.status === 'fail') {
    throw new CliError({
      code: 'CLI_INVALID_INPUT',
      message: `The model could not answer: ${result.failureReason ?? 'it reported a failure'}`,
    });
  }
  const response = await readFile(join(options.stageDir, 'response.md'), 'utf8').catch(() => undefined);
  const lastResponse = result.contextUpdates?.last_response;
  return response ?? (typeof lastResponse === 'string' ? lastResponse : '');
}

/** Lints the answer's pipeline and, when it has no errors, formats it and runs it once in simulation. */
async function judge(
  answer: string,
  options: {
    readonly filename: string;
    readonly cwd: string;
    readonly lintOptions: ReturnType<typeof lintOptionsOf>;
    readonly pluginTypes: Iterable<string>;
    readonly simulationDir: string;
  },
): Promise<RoundVerdict> {
  const dot = extractDot(answer);
  if (dot === undefined) {
    return {
      draft: answer,
      diagnostics: [],
      problems: 'The answer holds no DOT digraph: give the whole pipeline in one ```dot fenced block.',
    };
  }
  const lint = (text: string) =>
    prepareGraph(text, {
      filename: options.filename,
      readGraphFile: createGraphFileReader(options.cwd),
      ...options.lintOptions,
    });
  const prepared = lint(dot);
  const shownName = basename(options.filename);
  const describe = (diagnostics: readonly Diagnostic[], text: string) =>
    diagnostics.map((diagnostic) => formatDiagnostic(diagnostic, text, { filename: shownName })).join('\n');
  const errors = prepared.diagnostics.filter((diagnostic) => diagnostic.severity === 'error');
  if (prepared.graph === undefined || errors.length > 0) {
    return { draft: dot, diagnostics: prepared.diagnostics, problems: describe(prepared.diagnostics, dot) };
  }
  const text = formatPipeline(dot, { filename: shownName });
  const formatted = lint(text);
  const graph = formatted.graph ?? prepared.graph;
  const warnings = formatted.graph === undefined ? prepared.diagnostics : formatted.diagnostics;
  // A draft that declares inputs gets, for its simulated run, a minimal value of each (`"string"`, `0`, …).
  let inputs: Record<string, JsonValue> | undefined;
  try {
    const schema = await readInputSchema({ graph, baseDirectory: options.cwd });
    if (schema !== undefined) {
      const { sampleJsonValue } = await import('@attractor/handlers');
      inputs = sampleJsonValue(schema) as Record<string, JsonValue>;
    }
  } catch (error) {
    return {
      draft: text,
      diagnostics: warnings,
      problems: `The pipeline's inputs declaration cannot be used: ${(error as Error).message}`,
    };
  }
  const { coverRoutes } = await import('../routes/cover-routes.js');
  const report = await coverRoutes({
    graph,
    workdir: options.cwd,
    logsDir: options.simulationDir,
    seed: 0,
    maxRuns: 1,
    pluginTypes: options.pluginTypes,
    ...(inputs === undefined ? {} : { inputs }),
  });
  const run = report.runs[0];
  if (run === undefined || run.status !== 'success') {
    return {
      draft: text,
      diagnostics: warnings,
      problems: `A simulated run, in which every stage answers so as to reach the exit, did not reach it: ${run?.failureReason ?? 'it did not start'}. Its route: ${run?.route.join(' -> ') ?? '(none)'}.${warnings.length === 0 ? '' : `\n${describe(warnings, text)}`}`,
    };
  }
  return {
    draft: text,
    diagnostics: warnings,
    problems: describe(warnings, text),
    usable: { text, graph, route: run.route },
  };
}

/** `2 errors, 1 warning` or what kept the draft from the exit, for the round's line. */
function summarize(verdict: RoundVerdict): string {
  if (verdict.diagnostics.length === 0 && verdict.usable === undefined) {
    return verdict.problems.split('\n')[0]!;
  }
  const errors = verdict.diagnostics.filter((diagnostic) => diagnostic.severity === 'error').length;
  const warnings = verdict.diagnostics.length - errors;
  const counts = [
    errors > 0 ? countLabel(errors, 'error') : '',
    warnings > 0 ? countLabel(warnings, 'warning') : '',
  ].filter(Boolean);
  const stuck =
    errors === 0 && verdict.usable === undefined ? 'the simulated run did not reach the exit' : '';
  return [counts.join(', '), stuck].filter(Boolean).join('; ');
}

/** No usable answer within the rounds: writes the last draft beside the output, prints its problems, returns 1. */
async function refuse(
  verdict: RoundVerdict,
  options: { readonly io: CliIo; readonly colors: Colors; readonly rounds: number; readonly output?: string },
): Promise<number> {
  const { io, colors } = options;
  const base = options.output ?? join(io.cwd, 'pipeline.dot');
  const draftPath = freeName(join(dirname(base), `${basename(base, '.dot')}.draft.dot`));
  await writeOutputFile({
    path: draftPath,
    text: verdict.draft.endsWith('\n') ? verdict.draft : `${verdict.draft}\n`,
    shown: displayPath(draftPath, io.cwd),
    flag: '-o',
  });
  const shown = displayPath(draftPath, io.cwd);
  if (verdict.diagnostics.length > 0) {
    for (const diagnostic of verdict.diagnostics) {
      io.stderr.write(
        `${colorDiagnostic(formatDiagnostic(diagnostic, verdict.draft, { filename: shown }), diagnostic, colors)}\n`,
      );
    }
  } else {
    io.stderr.write(`${verdict.problems}\n`);
  }
  io.stderr.write(
    `${colors.red('error:')} the model gave no usable pipeline in ${countLabel(options.rounds, 'round')} (${summarize(verdict)}); its last draft is in ${shown}. Fix it by hand and check it with \`${cliCommand(io.env)} validate ${quoteArgument(shown)}\`, or ask again with more --rounds or a more precise description.\n`,
  );
  return 1;
}

/** `path`, or `name-2.dot`, `name-3.dot`, ... when it exists. */
function freeName(path: string): string {
  if (!existsSync(path)) return path;
  const extension = path.endsWith('.draft.dot') ? '.draft.dot' : '.dot';
  const stem = path.slice(0, -extension.length);
  for (let index = 2; ; index++) {
    const candidate = `${stem}-${index}${extension}`;
    if (!existsSync(candidate)) return candidate;
  }
}

/** `FixFailingTests` → `fix-failing-tests`; `pipeline` for a name with no letters or digits. */
function kebabCase(name: string): string {
  const words = name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
  return words.length === 0 ? 'pipeline' : words.join('-');
}
