/**
 * The `attractor` command line: commander wiring only. Each command's module is loaded with a dynamic `import()`
 * when the command runs, so `attractor validate` never loads the engine's handlers, the AI SDK or Graphviz.
 */
import { existsSync, readFileSync } from 'node:fs';
import { resolve as resolvePath } from 'node:path';
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import type { CliIo } from './cli-io.js';
import { createColors } from './colors.js';
import type { CancelCliOptions } from './commands/cancel-command.js';
import type { McpCliOptions } from './commands/mcp-command.js';
import type { NewCommandOptions } from './commands/new-command.js';
import type { PurgeCliOptions } from './commands/purge-command.js';
import type { QueueRunCliOptions } from './commands/queue-commands.js';
import type { RetryDeadCliOptions } from './commands/retry-dead-command.js';
import { DEFAULT_PAGE_SIZE as DEFAULT_RUNS_PAGE_SIZE, type RunsCliOptions } from './commands/runs-options.js';
import { parsePort, SERVER_TOKEN_ENV, type ServeCliOptions } from './commands/serve-options.js';
import type { WorkerCliOptions } from './commands/worker-command.js';
import { CliError } from './errors/cli-error.js';
import { describeFsError, fsFaultFix, isFsFault } from './errors/describe-fs-error.js';
import { withMaskedOutput } from './mask-output.js';
import {
  collectInput,
  collectSet,
  collectString,
  parseNonNegativeInteger,
  parseNonNegativeNumber,
  parsePositiveInteger,
  parseUrl,
  type SetValue,
} from './parse-options.js';
import { readBackendOption } from './run/backend-option.js';
import { SANDBOX_KINDS } from './run/resolve-sandbox.js';
import { storeRunsDirectory } from './run/store-runs-directory.js';

/** Options of {@link main}. */
export interface MainOptions {
  /** The arguments after the program name, e.g. `['run', 'pipeline.dot', '--simulate']`. */
  readonly argv: readonly string[];
  readonly io: CliIo;
}

/** Exit codes of the CLI. */
export const EXIT_CODES = { success: 0, failed: 1, usage: 2, interrupted: 130 } as const;

/**
 * Runs the CLI and resolves with the process exit code: 0 success, 1 pipeline failed (or `validate` found
 * errors), 2 usage or invalid input, 130 interrupted. User errors are printed without a stack trace.
 */
export async function main(options: MainOptions): Promise<number> {
  const io = withMaskedOutput(options.io, options.argv);
  const colors = createColors(io.color);
  let exitCode = 0;
  const program = new Command('attractor')
    .description('Run AI workflows defined as Graphviz DOT files (Attractor).')
    .version(readVersion(), '-V, --version', 'print the version')
    .helpOption('-h, --help', 'show help')
    .showSuggestionAfterError(true)
    .addHelpText(
      'after',
      `
Examples:
  attractor validate pipeline.dot
  attractor run pipeline.dot --simulate --workdir ./project
  attractor run pipeline.dot --model gpt-5.2 --answer A     (OPENAI_API_KEY from the environment)
  attractor inspect .attractor/runs/<run>
  attractor resume .attractor/runs/<run>
  attractor fork .attractor/runs/<run> --at review@2 --graph edited.dot
  attractor cancel .attractor/runs/<run>
  attractor purge --older-than 30d

Exit codes: 0 success, 1 pipeline failed (validate: errors found), 2 usage or invalid input, 130 interrupted.`,
    )
    .exitOverride()
    .configureOutput({
      writeOut: (text) => io.stdout.write(text),
      writeErr: (text) => io.stderr.write(text),
      outputError: (text, write) => write(colors.red(text)),
    });

  const run = program
    .command('run')
    .description('parse, lint and run a pipeline')
    .argument('<file.dot>', 'the pipeline')
    .addOption(
      new Option('--logs-dir <dir>', 'run directory (default: ./.attractor/runs/<UTC time>-<graph>/)'),
    )
    .addOption(
      new Option('--workdir <dir>', 'working directory of tools and agents (default: current directory)'),
    )
    .addOption(
      new Option(
        '--set <key=value>',
        'initial context value, JSON-parsed when valid JSON (repeatable)',
      ).argParser(collectSet),
    )
    .addOption(inputOption())
    .addOption(inputsFileOption());
  addRunOptions(run);
  run
    .addOption(
      new Option(
        '--workspace <mode>',
        "where the run changes files: git (a worktree on branch attractor/<run-id>, a commit per stage), copy, in-place, or auto (default: the graph's workspace attribute, the config's, else auto: git inside a repository)",
      ).choices(['git', 'copy', 'in-place', 'auto']),
    )
    .addOption(workspaceRootOption())
    .addOption(
      new Option(
        '--commit-author <identity>',
        'author of the run\'s commits, "Name <email>" (default: Attractor <attractor@localhost>)',
      ),
    )
    .addOption(
      new Option(
        '--queue [url]',
        'enqueue the run for workers instead of running it here, and print its id (queue: the url, else $ATTRACTOR_QUEUE_URL)',
      ),
    )
    .option('--wait', 'with --queue: follow the run until it ends and exit like a local run')
    .addOption(storeOption());
  run.action(async (file: string, commandOptions: QueueRunCliOptions) => {
    if (commandOptions.queue !== undefined) {
      const { enqueueCommand } = await import('./commands/queue-commands.js');
      exitCode = await enqueueCommand({ file, options: commandOptions, io });
      return;
    }
    if (commandOptions.wait === true) {
      throw new CliError({ code: 'CLI_USAGE', message: '--wait follows a queued run: add --queue.' });
    }
    const runsDirectory = storeRunsDirectory({
      store: commandOptions.store,
      ...(commandOptions.logsDir === undefined ? {} : { logsDir: commandOptions.logsDir }),
      io,
      command: 'run',
    });
    const { runCommand } = await import('./commands/run-command.js');
    exitCode = await runCommand({
      file,
      options: commandOptions,
      io,
      ...(runsDirectory === undefined ? {} : { runsDirectory }),
    });
  });

  const resume = program
    .command('resume')
    .description('continue an interrupted or failed run from its checkpoint')
    .argument('<run-dir>', 'the run directory')
    .addOption(
      new Option('--from <node>', 'continue at this node instead of the checkpoint (re-runs a finished run)'),
    )
    .addOption(new Option('--graph <file.dot>', 'the DOT file, when it moved since the run started'))
    .addOption(new Option('--workdir <dir>', 'working directory (default: the one the run started with)'));
  addRunOptions(resume);
  resume
    .addOption(
      new Option(
        '--queue [url]',
        'a run id of the shared queue: queue it again for a worker (queue: the url, else $ATTRACTOR_QUEUE_URL)',
      ),
    )
    .option('--wait', 'with a queued run: follow it until it ends')
    .addOption(storeOption());
  resume.action(async (runDir: string, commandOptions: QueueRunCliOptions) => {
    if (
      commandOptions.queue !== undefined ||
      (!existsSync(resolvePath(io.cwd, runDir)) && io.env.ATTRACTOR_QUEUE_URL)
    ) {
      const { resumeQueuedCommand } = await import('./commands/queue-commands.js');
      exitCode = await resumeQueuedCommand({ runId: runDir, options: commandOptions, io });
      return;
    }
    const { resumeCommand } = await import('./commands/run-command.js');
    exitCode = await resumeCommand({
      runDir: inStore(
        runDir,
        storeRunsDirectory({ store: commandOptions.store, io, command: 'resume' }),
        io.cwd,
      ),
      options: commandOptions,
      io,
    });
  });

  const fork = program
    .command('fork')
    .description('start a new run from the checkpoint after a completed stage of another run')
    .argument('<run-dir>', 'the run to fork (only read)')
    .requiredOption('--at <node[@visit]>', 'the completed stage to start after (default visit: the latest)')
    .addOption(new Option('--graph <file.dot>', "an edited DOT file (default: the run's own)"))
    .addOption(
      new Option(
        '--set <key=value>',
        "context value set over the checkpoint's, JSON-parsed when valid JSON (repeatable); the stage is routed again with them",
      ).argParser(collectSet),
    )
    .addOption(
      new Option(
        '--logs-dir <dir>',
        'run directory of the fork (default: ./.attractor/runs/<UTC time>-<graph>/)',
      ),
    )
    .addOption(new Option('--workdir <dir>', 'working directory (default: the one the run started with)'))
    .addOption(workspaceRootOption());
  addRunOptions(fork);
  fork
    .addOption(
      new Option(
        '--queue [url]',
        'a run id of the shared queue: enqueue the fork for a worker (queue: the url, else $ATTRACTOR_QUEUE_URL)',
      ),
    )
    .option('--wait', 'with a queued fork: follow it until it ends')
    .addOption(storeOption());
  fork.action(async (runDir: string, commandOptions: QueueRunCliOptions & { at: string }) => {
    if (commandOptions.set !== undefined) {
      // The server's rule (POST /pipelines/{id}/fork): keys the engine sets itself are refused before anything runs.
      const { forkContextKeyProblem } = await import('@attractor/server');
      for (const key of Object.keys(commandOptions.set)) {
        const problem = forkContextKeyProblem(key);
        if (problem !== undefined) throw new CliError({ code: 'CLI_USAGE', message: `--set: ${problem}.` });
      }
    }
    if (
      commandOptions.queue !== undefined ||
      (!existsSync(resolvePath(io.cwd, runDir)) && io.env.ATTRACTOR_QUEUE_URL)
    ) {
      const { forkQueuedCommand } = await import('./commands/queue-commands.js');
      exitCode = await forkQueuedCommand({
        runId: runDir,
        at: commandOptions.at,
        options: commandOptions,
        io,
      });
      return;
    }
    const runsDirectory = storeRunsDirectory({
      store: commandOptions.store,
      ...(commandOptions.logsDir === undefined ? {} : { logsDir: commandOptions.logsDir }),
      io,
      command: 'fork',
    });
    const { forkCommand } = await import('./commands/run-command.js');
    exitCode = await forkCommand({
      runDir: inStore(runDir, runsDirectory, io.cwd),
      at: commandOptions.at,
      options: commandOptions,
      io,
      ...(runsDirectory === undefined ? {} : { runsDirectory }),
    });
  });

  program
    .command('diff')
    .description('show what a run changed in its workspace, or what one stage changed (its commit)')
    .argument('<run-dir>', 'the run directory')
    .argument('[node[@visit]]', 'a stage (default visit: the latest); default: the whole run')
    .option('--stat', 'a summary of changed files instead of the patch')
    .action(async (runDir: string, at: string | undefined, commandOptions: { stat?: boolean }) => {
      const { diffCommand } = await import('./commands/workspace-commands.js');
      exitCode = await diffCommand({ runDir, ...(at === undefined ? {} : { at }), ...commandOptions, io });
    });

  program
    .command('apply')
    .description(
      "bring a run's result into your checkout (refused, changing nothing, when your changes are in the way)",
    )
    .argument('<run-dir>', 'the run directory')
    .option('--merge', "merge the run's branch (default; a merge commit with your git identity)")
    .option('--squash', "stage the run's changes for one commit of yours")
    .option('--patch', "write the run's changes to your files only (also for a copy workspace)")
    .option('--to <dir>', 'the checkout to apply to (default: the directory the run started in)')
    .action(
      async (
        runDir: string,
        commandOptions: { merge?: boolean; squash?: boolean; patch?: boolean; to?: string },
      ) => {
        const chosen = (['merge', 'squash', 'patch'] as const).filter(
          (method) => commandOptions[method] === true,
        );
        if (chosen.length > 1) {
          throw new CliError({
            code: 'CLI_USAGE',
            message: `Choose one of --merge, --squash and --patch (got ${chosen.map((method) => `--${method}`).join(' and ')}).`,
          });
        }
        const { applyCommand } = await import('./commands/workspace-commands.js');
        exitCode = await applyCommand({
          runDir,
          method: chosen[0] ?? 'merge',
          ...(commandOptions.to === undefined ? {} : { to: commandOptions.to }),
          io,
        });
      },
    );

  program
    .command('clean')
    .description(
      'remove the worktrees of finished runs, and the worktrees and branches of deleted runs (the branches of finished runs stay)',
    )
    .option('--runs-dir <dir>', 'the runs directory (default: ./.attractor/runs)')
    .option('--branches', "also delete finished runs' attractor/<run-id> branches")
    .option('--dry-run', 'only list what would be removed')
    .action(async (commandOptions: { runsDir?: string; branches?: boolean; dryRun?: boolean }) => {
      const { cleanCommand } = await import('./commands/workspace-commands.js');
      exitCode = await cleanCommand({ ...commandOptions, io });
    });

  program
    .command('validate')
    .description('lint pipelines and print diagnostics like a compiler; exit 1 when any has an error')
    .argument('<file.dot...>', 'the pipelines')
    .option('--json', 'print one JSON document on stdout')
    .option('--strict', 'treat dialect aliases as errors')
    .option('--config <file>', 'plug-in config: handlers (default: ./attractor.config.{js,mjs,ts})')
    .action(
      async (files: string[], commandOptions: { json?: boolean; strict?: boolean; config?: string }) => {
        const { validateCommand } = await import('./commands/validate-command.js');
        exitCode = await validateCommand({ files, io, ...commandOptions });
      },
    );

  program
    .command('test')
    .description(
      'simulate a pipeline as often as needed to take every edge (loops twice); print the route coverage',
    )
    .argument('<file.dot>', 'the pipeline')
    .option(
      '--routes',
      'route coverage: every edge taken, every loop twice, every gate reached (the default)',
    )
    .option('--json', 'print one JSON document on stdout')
    .addOption(
      new Option('--seed <n>', 'breaks ties between equally good routes (default 0)').argParser(
        parseNonNegativeInteger,
      ),
    )
    .addOption(
      new Option('--max-runs <n>', 'the most simulated runs (default: the number of edges plus 5)').argParser(
        parsePositiveInteger,
      ),
    )
    .addOption(
      new Option(
        '--logs-dir <dir>',
        'keep the runs here (run-1, run-2, ...; default: a temporary directory, removed afterwards)',
      ),
    )
    .addOption(
      new Option(
        '--set <key=value>',
        'initial context value of every run, JSON-parsed when valid JSON (repeatable)',
      ).argParser(collectSet),
    )
    .addOption(inputOption())
    .addOption(inputsFileOption())
    .option('--strict', 'treat dialect aliases as errors')
    .option(
      '--config <file>',
      'plug-in config: handler types (simulated) (default: ./attractor.config.{js,mjs,ts})',
    )
    .addHelpText(
      'after',
      `
Nothing is executed: LLM stages, tool commands and plug-in handlers are simulated, and human gates are answered
by the route. Exit codes: 0 coverage complete, 1 incomplete (an edge never taken or that cannot be taken, a loop
taken once, a gate never reached), 2 usage or a pipeline with errors.`,
    )
    .action(
      async (
        file: string,
        commandOptions: {
          json?: boolean;
          seed?: number;
          maxRuns?: number;
          logsDir?: string;
          set?: Record<string, SetValue>;
          input?: Record<string, string>;
          inputsFile?: string;
          strict?: boolean;
          config?: string;
        },
      ) => {
        const { testCommand } = await import('./commands/test-command.js');
        exitCode = await testCommand({ file, io, ...commandOptions });
      },
    );

  program
    .command('init')
    .description(
      'write a starter project: a pipeline, its prompt file, a config with a custom handler, .gitignore',
    )
    .argument('[dir]', 'where (created when missing; default: the current directory)')
    .action(async (directory: string | undefined) => {
      const { initCommand } = await import('./commands/init-command.js');
      exitCode = await initCommand({ io, ...(directory === undefined ? {} : { directory }) });
    });

  const newCommandSpec = program
    .command('new')
    .description(
      'have the model write a pipeline from a description; lint feedback until clean, formatted, rendered, simulated',
    )
    .argument('<description>', 'what the pipeline should do, in words')
    .option('-o, --output <file.dot>', "where (default: the graph's name, e.g. fix-failing-tests.dot)")
    .option('--force', 'replace the output file when it exists')
    .addOption(
      new Option('--rounds <n>', 'the most answers asked of the model (default 3)').argParser(
        parsePositiveInteger,
      ),
    )
    .option(
      '--logs-dir <dir>',
      "keep each round's prompt, answer and simulated run here (default: a temporary directory, removed afterwards)",
    )
    .addHelpText(
      'after',
      `
The model is told the node shapes, handler types, attributes and lint rules of this version, with an example.
Each answer is linted; its diagnostics (and a simulated run that does not reach the exit) go back to the model.
Exit codes: 0 pipeline written (with name.svg beside it), 1 no usable pipeline within --rounds (the last draft is
written to name.draft.dot), 2 usage, a missing API key or a failed model call.`,
    );
  addStageBackendOptions(newCommandSpec);
  newCommandSpec.action(
    async (description: string, commandOptions: Omit<NewCommandOptions, 'io' | 'description'>) => {
      const { newCommand } = await import('./commands/new-command.js');
      exitCode = await newCommand({ description, io, ...commandOptions });
    },
  );

  program
    .command('fmt')
    .description(
      'rewrite pipelines in the canonical layout (attribute order, quoting, indentation; comments kept)',
    )
    .argument('<file.dot...>', 'the pipelines (- formats standard input to standard output)')
    .option('--check', 'change nothing: list the files that are not formatted, exit 1 if there is one')
    .action(async (files: string[], commandOptions: { check?: boolean }) => {
      const { fmtCommand } = await import('./commands/fmt-command.js');
      exitCode = await fmtCommand({ files, io, ...commandOptions });
    });

  program
    .command('lsp')
    .description('run the language server for editors (Language Server Protocol over stdin and stdout)')
    .option('--stdio', 'talk over stdin and stdout (the default; editors pass it)')
    .action(async () => {
      const { lspCommand } = await import('./commands/lsp-command.js');
      // The unmasked streams: the protocol's messages are counted in bytes and must pass unchanged.
      exitCode = await lspCommand({ io: options.io });
    });

  program
    .command('render')
    .description('render a pipeline as SVG (Graphviz), optionally coloured by the status of a run')
    .argument('<file.dot>', 'the pipeline')
    .option('-o, --output <out.svg>', 'write the SVG here instead of stdout')
    .option(
      '--run <run>',
      'colour nodes by their status in this run (a run directory, or a run id of --store)',
    )
    .addOption(storeOption())
    .action(async (file: string, commandOptions: { output?: string; run?: string; store?: string }) => {
      const { renderCommand } = await import('./commands/render-command.js');
      exitCode = await renderCommand({ file, io, ...commandOptions });
    });

  program
    .command('inspect')
    .description(
      'show the stages of a run: visits, status, attempts, duration, tokens, failure; and the route',
    )
    .argument('<run>', 'the run directory, or a run id of the shared store (--store)')
    .option('--json', 'print one JSON document on stdout')
    .addOption(storeOption())
    .addOption(queueOption())
    .action(async (runDir: string, commandOptions: { json?: boolean; store?: string; queue?: string }) => {
      const { inspectCommand } = await import('./commands/inspect-command.js');
      exitCode = await inspectCommand({ runDir, io, ...commandOptions });
    });

  const serveCommand = program
    .command('serve')
    .description(
      'serve the HTTP API and web UI (spec §9.5): start, watch, answer and cancel runs in a browser',
    )
    .addOption(
      new Option('--port <port>', 'TCP port (0 picks a free one)').default(7070).argParser(parsePort),
    )
    .addOption(new Option('--host <host>', 'interface to listen on').default('127.0.0.1'));
  addServerOptions(serveCommand);
  addStageBackendOptions(serveCommand);
  addTelemetryOptions(serveCommand);
  serveCommand.addOption(logFormatOption());
  serveCommand.action(async (commandOptions: ServeCliOptions) => {
    const { serveCommand: runServe } = await import('./commands/serve-command.js');
    exitCode = await runServe({ options: commandOptions, io });
  });

  const mcp = program
    .command('mcp')
    .description(
      'serve Attractor over MCP for agents and IDEs: validate, start, watch, answer, cancel, resume and fork runs (stdio; streamable HTTP with --port)',
    )
    .addOption(
      new Option(
        '--port <port>',
        'serve streamable HTTP at /mcp on this port (0 picks a free one) instead of stdio',
      ).argParser(parsePort),
    )
    .addOption(new Option('--host <host>', 'interface of the HTTP server').default('127.0.0.1'));
  addServerOptions(mcp);
  addStageBackendOptions(mcp);
  mcp.action(async (commandOptions: McpCliOptions) => {
    const { mcpCommand } = await import('./commands/mcp-command.js');
    // The unmasked streams carry the protocol (the server masks what its tools return).
    exitCode = await mcpCommand({
      options: commandOptions,
      io,
      protocolIo: options.io,
      version: readVersion(),
    });
  });

  const workerCli = program
    .command('worker')
    .description('take runs from the shared queue and execute them against the shared run store')
    .addOption(
      new Option('--concurrency <n>', 'runs executed at once').default(1).argParser(parsePositiveInteger),
    )
    .addOption(
      new Option(
        '--workdir-root <dir>',
        "shared directory of the runs' working directories, <dir>/<run id> (default: $ATTRACTOR_WORKDIR_ROOT, else ./.attractor/work)",
      ),
    )
    .addOption(storeOption())
    .addOption(queueOption())
    .addOption(
      new Option(
        '--heartbeat-seconds <n>',
        'a worker silent this long loses its runs to other workers (at least 10; default 30)',
      ).argParser(parsePositiveInteger),
    )
    .addOption(
      new Option(
        '--supervise-seconds <n>',
        'how often to look for runs of dead workers (default 30)',
      ).argParser(parsePositiveInteger),
    )
    .addOption(
      new Option(
        '--retry-limit <n>',
        "retries of a run's job after its worker died or the store failed; then the run fails (default 5)",
      ).argParser(parseNonNegativeInteger),
    )
    .addOption(
      new Option(
        '--max-crashes <n>',
        'a run whose executor process dies this many times (killed, out of memory) fails; other runs are not affected (default 3)',
      ).argParser(parsePositiveInteger),
    )
    .addOption(
      new Option(
        '--executor-memory <MB>',
        "heap limit of each run's executor process (node --max-old-space-size); a run that exceeds it crashes its executor only",
      ).argParser(parsePositiveInteger),
    )
    .addOption(
      new Option(
        '--drain-seconds <n>',
        'on SIGTERM or Ctrl-C, let running stages finish this long before handing their runs back (a second signal hands back at once)',
      )
        .default(30)
        .argParser(parseNonNegativeInteger),
    )
    .addOption(
      new Option(
        '--wait-for-services <seconds>',
        'at start-up, wait this long for the store and queue to answer before giving up',
      )
        .default(60)
        .argParser(parseNonNegativeInteger),
    )
    .option(
      '--allow-tools',
      'execute runs that run shell commands (tool nodes, tool hooks, plug-in handlers that declare runsCommand, agent shell); refused otherwise',
    )
    .addOption(
      new Option(
        '--allow-base-url <url>',
        'an LLM endpoint queued runs may ask for with --base-url (repeatable); others are refused, the key never sent',
      ).argParser(collectString),
    )
    .addOption(
      new Option(
        '--allow-provider <name>',
        'an LLM provider queued runs may use (repeatable; default: any)',
      ).argParser(collectString),
    )
    .addOption(
      new Option(
        '--allow-dir <dir>',
        "a directory whose files queued runs may read: their DOT file's directory (graph_ref), --simulate-script, --prices (repeatable; default: the current directory)",
      ).argParser(collectString),
    )
    .addOption(sandboxOption())
    .addOption(
      new Option(
        '--workspace <mode>',
        "where runs change files, unless the run or its graph chooses: git (a worktree per run, a commit per stage; from --workspace-remote, else from the repository the run's working directory is in), copy, in-place (the default) or auto",
      ).choices(['git', 'copy', 'in-place', 'auto']),
    )
    .option(
      '--workspace-remote <path or URL>',
      "a git repository every worker pushes runs' branches to and fetches them from (a run picked up by another worker continues from its last checkpoint's commit); git runs start from its HEAD",
    )
    .option(
      '--workspace-bundles',
      "keep each run's commits in the run store as git bundles, so that any worker can continue a run with nothing but the store (the default without --workspace-remote)",
    )
    .option(
      '--no-workspace-bundles',
      'keep no bundles in the run store (the default with --workspace-remote)',
    )
    .addOption(
      new Option(
        '--commit-author <identity>',
        'author of the runs\' commits, "Name <email>" (default: Attractor <attractor@localhost>)',
      ),
    )
    .addOption(new Option('--run-executor', 'internal: execute one run for a worker').hideHelp())
    .option('--config <file>', 'plug-in config: handlers (default: ./attractor.config.{js,mjs,ts})')
    .addOption(secretOption())
    .addOption(
      new Option(
        '--metrics-port <port>',
        'serve /healthz, /readyz and /metrics (Prometheus) on this port',
      ).argParser(parsePort),
    )
    .addOption(
      new Option('--metrics-host <host>', 'interface of the --metrics-port listener').default('127.0.0.1'),
    );
  addTelemetryOptions(workerCli);
  workerCli.addOption(logFormatOption()).action(async (commandOptions: WorkerCliOptions) => {
    const { workerCommand } = await import('./commands/worker-command.js');
    exitCode = await workerCommand({ options: commandOptions, io });
  });

  program
    .command('runs')
    .description('list the runs of the shared store and queue, newest first, a page at a time')
    .option(
      '--status <status>',
      'only runs in this state: queued, running, waiting, success, fail, cancelled, interrupted, dead (dead letters of the queue)',
    )
    .option('--graph <name>', 'only runs of this graph')
    .addOption(
      new Option('--limit <n>', `runs per page, 0 for all (default ${DEFAULT_RUNS_PAGE_SIZE})`).argParser(
        parseNonNegativeInteger,
      ),
    )
    .addOption(new Option('--page <n>', 'which page (default 1)').argParser(parsePositiveInteger))
    .option('--json', 'print one JSON document on stdout')
    .addOption(storeOption())
    .addOption(queueOption())
    .action(async (commandOptions: RunsCliOptions) => {
      const { runsCommand } = await import('./commands/runs-command.js');
      exitCode = await runsCommand({ options: commandOptions, io });
    });

  program
    .command('answer')
    .description('answer the human gate a queued run waits at; a worker resumes the run')
    .argument('<run>', 'the run id')
    .argument('<key>', "an option's key, label or target node (yes/no, or the text of a free-text gate)")
    .addOption(queueOption())
    .action(async (runId: string, key: string, commandOptions: { queue?: string }) => {
      const { answerCommand } = await import('./commands/queue-commands.js');
      exitCode = await answerCommand({ runId, key, options: commandOptions, io });
    });

  program
    .command('cancel')
    .description('stop a run, keeping its checkpoint (a run directory, or a run id of the queue or store)')
    .argument('<run>', 'a run directory (.attractor/runs/<run>), or a run id of --queue or --store')
    .option('--reason <text>', 'why, for the run log (default: "cancelled with `attractor cancel`")')
    .addOption(storeOption())
    .addOption(queueOption())
    .action(async (run: string, commandOptions: CancelCliOptions) => {
      const { cancelCommand } = await import('./commands/cancel-command.js');
      exitCode = await cancelCommand({ run, options: commandOptions, io });
    });

  program
    .command('retry-dead')
    .description('queue dead-lettered runs again (runs --status dead lists them); workers resume them')
    .argument('[runs...]', 'run ids of dead runs')
    .option('--all', 'every dead run')
    .addOption(queueOption())
    .action(async (runs: string[], commandOptions: RetryDeadCliOptions) => {
      const { retryDeadCommand } = await import('./commands/retry-dead-command.js');
      exitCode = await retryDeadCommand({ runs, options: commandOptions, io });
    });

  program
    .command('purge')
    .description('remove old runs (their files or store rows, and queue records); lists them unless --yes')
    .requiredOption('--older-than <age>', 'runs that ended longer ago than this: 30d, 12h, 90m, 2w')
    .addOption(
      new Option(
        '--status <status>',
        'only these statuses, comma-separated or repeated: success, fail, cancelled, dead, interrupted (default: success, fail, cancelled, dead)',
      ).argParser(collectString),
    )
    .option('--yes', 'remove them (without it, purge only lists what it would remove)')
    .option('--dry-run', 'only list what would be removed (the default)')
    .addOption(
      new Option(
        '--store <url>',
        'run store: postgres://… or a runs directory (default: $ATTRACTOR_STORE_URL, else ./.attractor/runs)',
      ),
    )
    .addOption(queueOption())
    .action(async (commandOptions: PurgeCliOptions) => {
      const { purgeCommand } = await import('./commands/purge-command.js');
      exitCode = await purgeCommand({ options: commandOptions, io });
    });

  try {
    await program.parseAsync([...options.argv], { from: 'user' });
    if (options.argv.length === 0) {
      program.outputHelp({ error: true });
      return EXIT_CODES.usage;
    }
    return exitCode;
  } catch (error) {
    if (error instanceof CommanderError) {
      // help and --version exit 0; every parse error is a usage error.
      return error.exitCode === 0 ? 0 : EXIT_CODES.usage;
    }
    if (CliError.isInstance(error)) {
      io.stderr.write(`${colors.red('error:')} ${error.message}\n`);
      return error.exitCode;
    }
    if (isFsFault(error)) {
      // A file-system fault no command explained: still one line naming the path and the cause, never a stack.
      io.stderr.write(
        `${colors.red('error:')} ${error.path === undefined ? '' : `${error.path}: `}${describeFsError(error)}. ${fsFaultFix(error)}.\n`,
      );
      return EXIT_CODES.failed;
    }
    throw error;
  }
}

/** `--input name=value` of the commands that start a run from a graph (`run`, `test`). */
function inputOption(): Option {
  return new Option(
    '--input <name=value>',
    'a pipeline input declared by the graph\'s inputs (README "Typed data"); read as its declared type (repeatable)',
  ).argParser(collectInput);
}

/** `--inputs-file <file.json>` of the commands that start a run from a graph (`run`, `test`). */
function inputsFileOption(): Option {
  return new Option(
    '--inputs-file <file.json>',
    'pipeline inputs as a JSON object; --input values override it',
  );
}

/**
 * A run named by its id in a `--store` runs directory (`resume <run id> --store <dir>`): `<dir>/<run id>`, unless the
 * argument is a path that exists.
 */
function inStore(run: string, runsDirectory: string | undefined, cwd: string): string {
  if (runsDirectory === undefined || run.includes('/') || existsSync(resolvePath(cwd, run))) return run;
  return resolvePath(runsDirectory, run);
}

/** Parses `--backend` for commander. */
function parseBackendOption(text: string) {
  const read = readBackendOption(text);
  if ('error' in read) throw new InvalidArgumentError(read.error);
  return read.routing;
}

function addRunOptions(command: Command): void {
  command
    .addOption(
      new Option('--max-steps <n>', 'stop after this many node executions').argParser(parsePositiveInteger),
    )
    .addOption(
      new Option(
        '--max-budget-usd <usd>',
        "stop before the next model call once the run's model calls (branches and child runs included) cost this much (overrides max_budget_usd)",
      ).argParser(parseNonNegativeNumber),
    )
    .addOption(
      new Option(
        '--max-tokens <n>',
        "stop before the next model call once the run's model calls used this many tokens (overrides max_tokens)",
      ).argParser(parsePositiveInteger),
    )
    .option(
      '--prices <file.json>',
      'model prices in USD per million tokens, over the defaults: {"<model>": {"input": 3, "output": 15, "cachedInput": 0.3}}',
    )
    .option('--simulate', 'simulate LLM stages (no API key needed); tools run for real')
    .option(
      '--simulate-script <file.json>',
      'simulated outcomes per node and call, e.g. {"review": ["fail", "success"]}; with --dry-run also tool output, e.g. {"check": [{"stdout": "fresh"}]}',
    )
    .option('--dry-run', 'simulate LLM stages and record tool commands without running them')
    .addOption(
      new Option(
        '--seed <n>',
        'simulation: stages find the shortest route to the exit; the seed breaks ties between equally short ones (default 0)',
      ).argParser(parseNonNegativeInteger),
    )
    .option('--auto-approve', 'answer every human gate with its first option')
    .addOption(
      new Option('--answer <key>', 'queued answer for the next human gate, in order (repeatable)').argParser(
        collectString,
      ),
    )
    .option('--json', 'print events as JSON lines on stdout and nothing else there')
    .option('-q, --quiet', 'print only the run directory, warnings, errors and the final summary')
    .option('-v, --verbose', 'also print agent text, tool calls, logs and checkpoints')
    .option('--strict', 'treat dialect aliases as errors');
  addStageBackendOptions(command);
  addTelemetryOptions(command);
}

/** `--otel` and `--otel-content`: OpenTelemetry spans, off by default (the `OTEL_*` variables configure them). */
function addTelemetryOptions(command: Command): void {
  command
    .option(
      '--otel',
      'export OpenTelemetry spans (OTLP by default; configured by the OTEL_* environment variables, which also turn it on)',
    )
    .option('--otel-content', 'like --otel, and let spans carry prompt and response text (off by default)');
}

/** `--log-format`: human lines (default) or JSON lines. */
function logFormatOption(): Option {
  return new Option(
    '--log-format <format>',
    'human (default) or json: one JSON object a line on stdout',
  ).choices(['human', 'json']);
}

/** The options `run`, `resume` and `serve` share: who runs LLM stages, with which model, plug-ins and secrets. */
/** The options `serve` and `mcp` share: the token, where runs live and work, the tool guard, the shared store. */
function addServerOptions(command: Command): void {
  command
    .option(
      '--token <token>',
      `bearer token clients must send (default: $${SERVER_TOKEN_ENV}, else a random one)`,
    )
    .option(
      '--runs-dir <dir>',
      'where run directories go and past runs are found (default: ./.attractor/runs)',
    )
    .option('--pipelines <dir>', 'a directory of .dot files clients may start by name')
    .option('--workdir <dir>', 'working directory of tools and agents (default: current directory)')
    .addOption(
      new Option(
        '--workspace <mode>',
        "where runs change files: git (a worktree per run, a commit per stage), copy, in-place, or auto (default: the graph's workspace attribute, the config's, else auto)",
      ).choices(['git', 'copy', 'in-place', 'auto']),
    )
    .addOption(workspaceRootOption())
    .option(
      '--workspace-remote <path or URL>',
      "with --store: the workers' shared repository (their --workspace-remote), where the diffs of their runs are read from",
    )
    .option('--allow-tools', 'accept pipelines that run shell commands (tool nodes, tool hooks, agent shell)')
    .option('--simulate', 'simulate LLM stages of every run (no API key needed)')
    .addOption(storeOption())
    .addOption(queueOption());
}

function addStageBackendOptions(command: Command): void {
  command
    .option('--model <model>', 'default model for stages that name none')
    .option(
      '--provider <provider>',
      'provider for stages whose llm_provider and model name imply none: openai, anthropic, google (gemini) (default: openai)',
    )
    .addOption(
      new Option('--base-url <url>', 'OpenAI-compatible API base URL (default: $OPENAI_BASE_URL)').argParser(
        parseUrl,
      ),
    )
    .addOption(
      new Option(
        '--backend <choice>',
        'who runs LLM stages: api (default), claude-code, codex or gemini-cli; or per provider, e.g. anthropic=claude-code,openai=codex',
      ).argParser(parseBackendOption),
    )
    .addOption(
      new Option(
        '--agent-permissions <mode>',
        'what agent CLIs may do unasked: edit (default; edit files in the workdir) or full (anything, no sandbox)',
      ).choices(['edit', 'full']),
    )
    .addOption(sandboxOption())
    .option('--config <file>', 'plug-in config: handlers, defaults (default: ./attractor.config.{js,mjs,ts})')
    .addOption(secretOption());
}

/** `--sandbox <kind>`: confine the commands of tool and agent stages. */
function sandboxOption(): Option {
  return new Option(
    '--sandbox <kind>',
    'confine tool and agent stage commands: bwrap (Bubblewrap: read-only system, only the workdir and stage directory writable, no network unless sandbox_network=true; $ATTRACTOR_BWRAP names the program) or none (default)',
  ).choices(SANDBOX_KINDS);
}

/** `--workspace-root <dir>`: where run worktrees go. */
function workspaceRootOption(): Option {
  return new Option(
    '--workspace-root <dir>',
    'where run worktrees go, <dir>/<run-id> (default: workspace/ in the run directory)',
  );
}

/** `--store <url>`: the shared run store. */
function storeOption(): Option {
  return new Option(
    '--store <url>',
    'shared run store: postgres://… or a directory on a shared volume (default: $ATTRACTOR_STORE_URL)',
  );
}

/** `--queue <url>`: the shared run queue. */
function queueOption(): Option {
  return new Option('--queue <url>', 'shared run queue: postgres://… (default: $ATTRACTOR_QUEUE_URL)');
}

/** `--secret NAME` (repeatable): main.ts reads it from argv before parsing; commander only has to accept it. */
function secretOption(): Option {
  return new Option(
    '--secret <NAME>',
    'mask the value of environment variable NAME everywhere (files, events, console, prompts), like *KEY*, *TOKEN*, *SECRET*, *PASSWORD*, *AUTH* names (repeatable)',
  ).argParser(collectString);
}

function readVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
    version: string;
  };
  return pkg.version;
}
