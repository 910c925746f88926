/**
 * The `tool` handler (spec §4.10, docs/architecture.md "Tool nodes"): runs `tool_command` in a shell with
 * execa, in its own process group so a timeout or cancellation kills everything the command started.
 */
import type { CommandSandbox, HandlerRuntime, JsonValue, Outcome } from '@attractor/engine';
import {
  createSecretMasker,
  type DeclaredHandler,
  defineHandler,
  inputsOfContext,
  itemsOfContext,
} from '@attractor/engine';
import { killProcessGroup, processGroupAlive, trackProcessGroup } from '@attractor/engine/internal';
import {
  expandVariables,
  type Graph,
  type GraphEdge,
  type GraphNode,
  SPEC_HANDLER_DECLARATIONS,
} from '@attractor/graph';
import { execa } from 'execa';
import type { RouteFinder } from './route-finder.js';
import { simulatedReply } from './simulation-backend.js';
import { readSimulationStep, type SimulationScript } from './simulation-script.js';
import { readWrittenStatus, removeStatusFile } from './stage-files.js';
import {
  checkStructuredOutput,
  notesWith,
  type OutputSchema,
  type OutputSchemaResult,
  readOutputSchema,
} from './structured-output.js';
import { traceToolCommand } from './tool-command-span.js';
import { routableToolOutput, TOOL_OUTPUT_MAX_CHARS, toolContextUpdates } from './tool-context.js';
import { truncateTail } from './truncate-text.js';

/** Options of {@link createToolHandler}. */
export interface ToolHandlerOptions {
  /**
   * Record the command (`command.sh` in the stage directory and a `stage.log` event) without running it, and
   * return SUCCESS with notes saying so and a simulated stdout (see {@link createToolHandler}). Default: false.
   */
  readonly dryRun?: boolean;
  /**
   * Dry run only: steps per tool node id, one per call (the CLI's `--simulate-script`): an outcome word, or
   * `{ "outcome"?: word, "stdout"?: text }` for what the command "prints". Without `dryRun`, a script entry for a
   * tool node is ignored with a `stage.log` warning (the command runs for real). Default: `{}`.
   */
  readonly script?: SimulationScript;
  /**
   * Dry run only: calls each tool node already made in the run (`readSimulationCalls` of a run being resumed or
   * forked); a node's next call takes the step after them. Default: none.
   */
  readonly calls?: ReadonlyMap<string, number>;
  /**
   * Dry run only: chooses the route of an unscripted tool node (see `createRouteFinder`): when its plain simulated
   * output would take no edge or lead away from the exit, it "prints" and exits as the route needs. Default: none
   * (the plain output, see {@link createToolHandler}).
   */
  readonly routes?: RouteFinder;
  /** The shell: `true` for `/bin/sh`, or a path such as `/bin/bash`. Default: true. */
  readonly shell?: boolean | string;
  /** Milliseconds between SIGTERM and SIGKILL of the process group when the stage is aborted. Default: 2000. */
  readonly killGraceMs?: number;
  /** Characters of stdout kept in `tool.output` (the rest is cut with a marker). Default: 10240. */
  readonly outputMaxChars?: number;
  /**
   * Bytes of stdout and of stderr kept in `stdout.txt` / `stderr.txt` when the node has no `tool_output_max_bytes`.
   * Output past it is read and dropped (the command never gets a broken pipe), and the truncation is recorded in
   * the outcome's notes, in `tool.output_truncated` and as a `stage.log` warning. Default: 100,000,000.
   */
  readonly outputMaxBytes?: number;
  /**
   * The environment commands start from; the `ATTRACTOR_*` variables are added to it. Default: the environment of
   * this process (`process.env`), as a shell the user starts would get.
   */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

/**
 * The environment variable that carries input `name` to a tool command (README "Typed data"): `$input.repo` in
 * `tool_command` becomes `${ATTRACTOR_INPUT_repo}`.
 */
export function inputVariableName(name: string): string {
  return `ATTRACTOR_INPUT_${name}`;
}

function inputVariable(name: string): string {
  return `\${${inputVariableName(name)}}`;
}

/**
 * The environment variable that carries the item a `foreach` bound to `name` (README "Typed data"): `$item.file` in
 * `tool_command` becomes `${ATTRACTOR_ITEM_file}`.
 */
export function itemVariableName(name: string): string {
  return `ATTRACTOR_ITEM_${name}`;
}

function itemVariable(name: string): string {
  return `\${${itemVariableName(name)}}`;
}

/** The run's inputs and the bound foreach items as environment variables: a string as is, any other value as JSON. */
function inputEnvironment(values: Readonly<Record<string, JsonValue>>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(inputsOfContext(values))) {
    env[inputVariableName(name)] = typeof value === 'string' ? value : JSON.stringify(value);
  }
  for (const [name, value] of Object.entries(itemsOfContext(values))) {
    env[itemVariableName(name)] = typeof value === 'string' ? value : JSON.stringify(value);
  }
  return env;
}

/**
 * Added to the failure reason of a failing command on a node with `auto_status=true`. Spec Appendix C has the engine
 * write SUCCESS only when the handler wrote no status; the tool handler always reports one (its exit code), so
 * `auto_status` never turns a failing command into a success (issue 19, documented in the handlers README).
 */
const AUTO_STATUS_NOTE =
  ' (auto_status=true does not override the exit code: it applies only when a handler reports no outcome, spec Appendix C; make the command exit 0, or write status.json in $ATTRACTOR_STAGE_DIR, to report success)';

/**
 * Creates the `tool` handler (spec §4.10, docs/architecture.md "Tool nodes").
 *
 * Runs the node's `tool_command` in a shell (`cwd` = `runtime.workdir`, stdin closed) as the leader of its own
 * process group, with `ATTRACTOR_RUN_ID`, `ATTRACTOR_LOGS_ROOT`, `ATTRACTOR_STAGE_DIR`, `ATTRACTOR_NODE_ID` and `ATTRACTOR_WORKDIR` (the
 * run's working directory: its workspace's worktree when it has one, README "Workspaces") added to
 * the environment. stdout and stderr go in full to `stdout.txt` / `stderr.txt` in the stage directory; the
 * context gets `tool.output` (stdout, truncated to 10 KB with a marker), `tool.exit_code` (a number, or null when
 * a signal ended the command) and `tool.stderr` (the last 2 KB), and the same text without trailing whitespace
 * under the 2389 tracker's names `tool_stdout` / `tool_stderr` (`TOOL_DIALECT_KEYS`), so pipelines written for
 * that runner route as they did there, and `tool.last_line` (the last non-empty line of stdout). Exit 0 is SUCCESS; any
 * other exit is FAIL with the exit code and the stderr tail as the reason, also with `auto_status=true` (which applies
 * only when a handler reports no outcome; the reason says so). A `status.json` the command writes in `$ATTRACTOR_STAGE_DIR` overrides the outcome
 * (spec Appendix C); its context updates are merged over the `tool.*` keys.
 *
 * In a dry run the command is recorded, not run. The n-th call of a node takes the n-th step of `script[node.id]`
 * (default: SUCCESS): its outcome word (a `fail` sets `tool.exit_code` 1 and a failure reason) and its `stdout`.
 * Without a scripted `stdout` the output is `''`, unless the outcome is not a failure and no outgoing edge is
 * eligible with an empty output; then it is the first value the node's conditions compare the output with that
 * makes an edge eligible (`routableToolOutput`). An unscripted node with `routes` whose plain output would take no
 * edge or lead away from the exit "prints" and exits as the route the route finder picks needs, and says which edge
 * it aims for in a `stage.log` event. The counters live in the handler: use one registry per run, and give it the
 * calls the run already made (`calls`) when it resumes one.
 *
 * When `runtime.abortSignal` aborts (node `timeout`, run cancellation), the whole group gets SIGTERM and, after
 * `killGraceMs`, SIGKILL, so grandchildren (`sleep` started by the shell) die too.
 *
 * @example
 * registry.register('tool', createToolHandler({ shell: '/bin/bash' }));
 */
export function createToolHandler(options: ToolHandlerOptions = {}): DeclaredHandler {
  const script = options.script ?? {};
  const calls = new Map<string, number>(options.calls ?? []);
  return defineHandler({
    type: 'tool',
    ...SPEC_HANDLER_DECLARATIONS.tool,
    async execute({ node, attributes, context, graph, logsRoot, runtime }) {
      const commandText = attributes.tool_command?.trim() ?? '';
      // $input.<name> and $item.<name> read the environment variable that carries the value: its text is never shell
      // syntax. `$goal` stays as written (spec §9.2 expands it in prompts only).
      const command = expandVariables(commandText, {
        goal: '$goal',
        inputReference: inputVariable,
        items: itemsOfContext(context.snapshot()),
        itemReference: itemVariable,
      }).text;
      if (command === '') {
        return {
          status: 'fail',
          failureReason: `No tool_command specified on tool node "${node.id}"; add tool_command="<shell command>"`,
          retryable: false,
        };
      }
      const secrets = runtime.secrets ?? createSecretMasker();
      if (options.dryRun === true) {
        await runtime.stage.writeFile('command.sh', secrets.maskText(`#!/bin/sh\n${command}\n`));
        runtime.emit({ type: 'stage.log', level: 'info', message: `dry run: would run ${command}` });
        const call = (calls.get(node.id) ?? 0) + 1;
        calls.set(node.id, call);
        const scripted = script[node.id]?.[call - 1];
        const dryRun: DryRunOptions = {
          command,
          call,
          step: readSimulationStep(scripted),
          nodeId: node.id,
          edges: graph.outgoing(node.id),
          context,
          outputMaxChars: options.outputMaxChars ?? TOOL_OUTPUT_MAX_CHARS,
        };
        const aimed =
          scripted === undefined && options.routes !== undefined
            ? aimedDryRunOutcome(dryRun, { routes: options.routes, graph, node, runtime })
            : undefined;
        return structuredDryRunOutcome(aimed ?? dryRunOutcome(dryRun), dryRun, {
          node,
          schema: await readOutputSchema({ node, graph, workdir: runtime.workdir }),
        });
      }
      if (Object.hasOwn(script, node.id)) {
        runtime.emit({
          type: 'stage.log',
          level: 'warn',
          message: `the simulation script's entry for tool node "${node.id}" is ignored: its command runs for real (script a tool node's output with --dry-run)`,
        });
      }
      await removeStatusFile(runtime.stage);
      // stdout.txt and stderr.txt grow while the command runs (a retry starts them afresh).
      const stdoutFile = createLiveStageFile(runtime, 'stdout.txt');
      const stderrFile = createLiveStageFile(runtime, 'stderr.txt');
      await Promise.all([stdoutFile.start(), stderrFile.start()]);
      const outputMaxBytes =
        attributes.tool_output_max_bytes ?? options.outputMaxBytes ?? TOOL_OUTPUT_MAX_BYTES;
      const stageDirectory = await runtime.stage.localDirectory();
      const raw = await traceToolCommand({ runtime, nodeId: node.id, command, secrets }, () =>
        runCommand(command, {
          runtime,
          ...(runtime.sandbox === undefined
            ? {}
            : {
                sandbox: {
                  sandbox: runtime.sandbox,
                  writable: [stageDirectory],
                  network: attributes.sandbox_network === true,
                },
              }),
          inheritEnv: options.env === undefined,
          env: {
            ...options.env,
            ...inputEnvironment(context.snapshot()),
            ATTRACTOR_RUN_ID: runtime.runId,
            ATTRACTOR_LOGS_ROOT: logsRoot,
            ATTRACTOR_STAGE_DIR: stageDirectory,
            ATTRACTOR_NODE_ID: node.id,
            ATTRACTOR_WORKDIR: runtime.workdir,
          },
          shell: options.shell ?? true,
          killGraceMs: options.killGraceMs ?? 2000,
          outputMaxBytes,
          stdoutFile,
          stderrFile,
        }),
      );
      // Commands get the real environment; what they print is masked before it is kept anywhere.
      const run = { ...raw, stdout: secrets.maskText(raw.stdout), stderr: secrets.maskText(raw.stderr) };
      const truncation = describeTruncation(run, outputMaxBytes);
      if (truncation !== undefined) {
        runtime.emit({ type: 'stage.log', level: 'warn', message: truncation });
      }
      const contextUpdates: Record<string, JsonValue> = {
        ...toolContextUpdates(run, options.outputMaxChars ?? TOOL_OUTPUT_MAX_CHARS),
        ...(truncation === undefined ? {} : { 'tool.output_truncated': true }),
      };
      let outcome: Outcome;
      if (run.spawnError !== undefined) {
        outcome = { status: 'fail', failureReason: run.spawnError, contextUpdates };
      } else if (run.exitCode === 0) {
        outcome = {
          status: 'success',
          notes: `Tool completed: ${command}${truncation === undefined ? '' : ` (${truncation})`}`,
          contextUpdates,
        };
        // output_schema: the command's stdout is JSON of that schema (README "Typed data").
        const outputSchema = await readOutputSchema({ node, graph, workdir: runtime.workdir });
        if (!outputSchema.ok) {
          outcome = { status: 'fail', failureReason: outputSchema.reason, retryable: false, contextUpdates };
        } else if (outputSchema.schema !== undefined) {
          outcome = withStructuredOutput(outcome, {
            node,
            text: truncation === undefined ? run.stdout : '',
            schema: outputSchema.schema,
            source: truncation === undefined ? 'stdout' : `stdout, which was truncated: ${truncation}`,
            retryable: true,
            onWarning: (message) => runtime.emit({ type: 'stage.log', level: 'warn', message }),
          });
        }
      } else {
        const how =
          run.exitCode === undefined
            ? `was killed by ${run.signal ?? 'a signal'}`
            : `exited with code ${run.exitCode}`;
        const tail = truncateTail(run.stderr.trim(), 500);
        outcome = {
          status: 'fail',
          failureReason: `command ${how}${tail === '' ? '' : `: ${tail}`}${node.autoStatus ? AUTO_STATUS_NOTE : ''}`,
          ...(truncation === undefined ? {} : { notes: truncation }),
          contextUpdates,
        };
      }
      const written = await readWrittenStatus(runtime.stage);
      if (written === undefined) return outcome;
      return { ...written, contextUpdates: { ...contextUpdates, ...(written.contextUpdates ?? {}) } };
    },
  });
}

/** Default of the `tool_output_max_bytes` attribute: bytes of stdout and of stderr kept, 100,000,000. */
export const TOOL_OUTPUT_MAX_BYTES = 100_000_000;

/** The warning recorded when output went past the cap, or undefined. */
function describeTruncation(run: CommandRun, maxBytes: number): string | undefined {
  const parts: string[] = [];
  if (run.stdoutDroppedBytes > 0) parts.push(`stdout (${run.stdoutDroppedBytes} more bytes dropped)`);
  if (run.stderrDroppedBytes > 0) parts.push(`stderr (${run.stderrDroppedBytes} more bytes dropped)`);
  if (parts.length === 0) return undefined;
  return `output truncated at tool_output_max_bytes=${maxBytes}: ${parts.join(', ')}`;
}

interface DryRunOptions {
  readonly command: string;
  readonly call: number;
  readonly step: { readonly outcome?: string; readonly stdout?: string };
  readonly nodeId: string;
  readonly edges: readonly GraphEdge[];
  readonly context: { get(key: string): unknown };
  readonly outputMaxChars: number;
}

/** The context keys that hold what a tool node printed. */
const STDOUT_KEYS = ['tool.output', 'tool_stdout', 'tool.last_line'] as const;

/**
 * The stdout a dry-run node "prints" for the context values an aim chose: the first stdout key whose value the aim
 * changed from the plain output's, else the plain output.
 */
function aimedStdout(
  updates: Readonly<Record<string, JsonValue>>,
  plain: Readonly<Record<string, JsonValue>>,
  plainStdout: string,
): string {
  for (const key of STDOUT_KEYS) {
    const value = updates[key];
    if (typeof value === 'string' && value !== plain[key]) return value;
  }
  return plainStdout;
}

/**
 * An unscripted dry-run node whose plain output (see {@link dryRunOutcome}) takes no edge or leads away from the exit:
 * the output and exit status of the route the route finder picks, with a `stage.log` saying which edge it aims for.
 * `undefined` when the plain output is the route (or none can be taken).
 */
function aimedDryRunOutcome(
  options: DryRunOptions,
  run: {
    readonly routes: RouteFinder;
    readonly graph: Graph;
    readonly node: GraphNode;
    readonly runtime: HandlerRuntime;
  },
): Outcome | undefined {
  const toolUpdates = (stdout: string, status: string) =>
    toolContextUpdates({ stdout, stderr: '', exitCode: status === 'fail' ? 1 : 0 }, options.outputMaxChars);
  const plain = routableToolOutput({ edges: options.edges, context: options.context, outcome: 'success' });
  const baseUpdates = toolUpdates(plain, 'success');
  const aim = run.routes.aim({
    graph: run.graph,
    node: run.node,
    context: options.context,
    visit: options.call,
    statuses: ['success'],
    baseUpdates,
    realize: ({ status, contextUpdates }) => ({
      ...contextUpdates,
      ...toolUpdates(aimedStdout(contextUpdates, baseUpdates, plain), status),
    }),
  });
  if (aim === undefined) return undefined;
  run.runtime.emit({ type: 'stage.log', level: 'info', message: `dry run: ${aim.description}` });
  const stdout = aimedStdout(aim.contextUpdates, baseUpdates, plain);
  const failed = aim.status === 'fail' || aim.status === 'retry';
  const printed = stdout === '' ? '' : `; simulated output ${JSON.stringify(stdout)}`;
  return {
    status: aim.status,
    ...(aim.preferredLabel === undefined ? {} : { preferredLabel: aim.preferredLabel }),
    ...(aim.suggestedNextIds === undefined ? {} : { suggestedNextIds: aim.suggestedNextIds }),
    notes: `Dry run: command not executed (recorded in command.sh)${printed}; the route ${aim.description}: ${options.command}`,
    contextUpdates: { ...aim.contextUpdates, ...toolUpdates(stdout, aim.status) },
    ...(failed
      ? { failureReason: `simulated ${aim.status}: the route ${aim.description}`, retryable: false }
      : {}),
  };
}

/**
 * A dry-run outcome of a node with an `output_schema` (README "Typed data"): the command "prints" the scripted
 * `stdout`, else a minimal JSON value valid for the schema (`simulatedReply`), checked and mapped into the context
 * like a real command's stdout, so typed pipelines run in `--dry-run` and `attractor test`. A failed outcome stays
 * as it is; a scripted stdout the schema refuses fails the stage with the validation errors.
 */
function structuredDryRunOutcome(
  outcome: Outcome,
  dryRun: DryRunOptions,
  options: { readonly node: GraphNode; readonly schema: OutputSchemaResult },
): Outcome {
  const { node, schema } = options;
  if (!schema.ok) return { status: 'fail', failureReason: schema.reason, retryable: false };
  if (schema.schema === undefined || (outcome.status !== 'success' && outcome.status !== 'partial_success'))
    return outcome;
  let text: string;
  try {
    text = dryRun.step.stdout ?? simulatedReply({ node, outputSchema: schema.schema });
  } catch (error) {
    return {
      status: 'fail',
      failureReason: `the dry run cannot build a value for the output_schema of "${node.id}" (${(error as Error).message}); give its stdout in the simulation script: {"${node.id}": [{"stdout": ...}]}`,
      retryable: false,
    };
  }
  return withStructuredOutput(outcome, {
    node,
    text,
    schema: schema.schema,
    source: 'simulated stdout',
    retryable: false,
  });
}

/**
 * A successful command's `outcome` once its stdout `text` is checked against the node's `output_schema`: the
 * structured values mapped into the context (`out_map`) and the check's warnings in the notes (and to `onWarning`),
 * or a FAIL with the validation errors, `retryable` as given, keeping the outcome's context updates.
 */
function withStructuredOutput(
  outcome: Outcome,
  options: {
    readonly node: GraphNode;
    readonly text: string;
    readonly schema: OutputSchema;
    /** What produced the text, for the reason: `stdout`, `simulated stdout`. */
    readonly source: string;
    readonly retryable: boolean;
    readonly onWarning?: (message: string) => void;
  },
): Outcome {
  const { node, text, schema, source } = options;
  const checked = checkStructuredOutput({ node, text, schema, source });
  const contextUpdates = outcome.contextUpdates ?? {};
  if (!checked.ok) {
    return { status: 'fail', failureReason: checked.reason, retryable: options.retryable, contextUpdates };
  }
  for (const message of checked.warnings) options.onWarning?.(message);
  return {
    ...outcome,
    ...notesWith(outcome.notes, checked.warnings),
    contextUpdates: { ...contextUpdates, ...checked.contextUpdates },
  };
}

function dryRunOutcome(options: DryRunOptions): Outcome {
  const { step, command } = options;
  const status = step.outcome ?? 'success';
  const failed = status === 'fail' || status === 'retry';
  // A simulated failure prints nothing unless scripted: it routes as a failed command would, on outcome=fail.
  const stdout =
    step.stdout ??
    (failed ? '' : routableToolOutput({ edges: options.edges, context: options.context, outcome: status }));
  const contextUpdates = toolContextUpdates(
    { stdout, stderr: '', exitCode: status === 'fail' ? 1 : 0 },
    options.outputMaxChars,
  );
  const printed = stdout === '' ? '' : `; simulated output ${JSON.stringify(stdout)}`;
  return {
    status,
    notes: `Dry run: command not executed (recorded in command.sh)${printed}: ${command}`,
    contextUpdates,
    ...(failed
      ? { failureReason: `simulated ${status} (script entry ${options.call} for "${options.nodeId}")` }
      : {}),
  };
}

/**
 * Characters of each stream sent live as `stage.custom` events (`tool.stdout` / `tool.stderr`, data `{ text }`)
 * while a command runs, so that a watcher (the server's web UI) shows its output before it ends. Past this, one
 * last event says the rest is in the stage's `stdout.txt` / `stderr.txt`, which always hold everything.
 */
export const TOOL_LIVE_OUTPUT_MAX_CHARS = 32 * 1024;

/**
 * Sends a command's output as `tool.stdout` / `tool.stderr` custom events while it runs, up to
 * {@link TOOL_LIVE_OUTPUT_MAX_CHARS} per stream, masked a line at a time (see `createMaskedLines`).
 */
function forwardLiveOutput(
  stream: NodeJS.ReadableStream | null | undefined,
  name: 'stdout' | 'stderr',
  runtime: HandlerRuntime,
): void {
  if (stream === null || stream === undefined) return;
  let sent = 0;
  const send = (text: string) => {
    if (sent >= TOOL_LIVE_OUTPUT_MAX_CHARS) return;
    const room = TOOL_LIVE_OUTPUT_MAX_CHARS - sent;
    if (text.length <= room) {
      sent += text.length;
      runtime.emit({ type: 'stage.custom', name: `tool.${name}`, data: { text } });
      return;
    }
    runtime.emit({ type: 'stage.custom', name: `tool.${name}`, data: { text: text.slice(0, room) } });
    runtime.emit({
      type: 'stage.custom',
      name: `tool.${name}`,
      data: { text: `\n[live output stops here; ${name}.txt in the stage directory holds all of it]\n` },
    });
    sent = TOOL_LIVE_OUTPUT_MAX_CHARS;
    stream.removeListener('data', onData);
  };
  const lines = createMaskedLines(runtime, send);
  const onData = (chunk: Buffer | string) => lines.write(chunk);
  stream.on('data', onData);
  stream.once('end', () => lines.end());
}

/**
 * Turns chunks of a command's output into masked pieces for `sink`: a line at a time, each line masked whole with
 * the run's secret masker, so a secret the command prints in two writes (`printf 'pass'; sleep 1; printf 'word\n'`)
 * is still one string when it is masked; a line without a newline waits for one (or for `end()`), except that past
 * {@link LIVE_LINE_HOLD_CHARS} characters all but the last stretch that could hold a secret go out.
 */
function createMaskedLines(
  runtime: HandlerRuntime,
  sink: (masked: string) => void,
): { write(chunk: Buffer | string): void; end(): void } {
  const masker = runtime.secrets ?? createSecretMasker();
  // Keep back at least the longest known secret (minus one) and room for a token shape when a line is cut.
  const keep = Math.max(masker.longestValueLength - 1, 256);
  const decoder = new TextDecoder();
  let pending = '';
  const send = (raw: string) => {
    const masked = masker.maskText(raw);
    if (masked !== '') sink(masked);
  };
  return {
    write(chunk) {
      pending += typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true });
      const lineEnd = pending.lastIndexOf('\n');
      if (lineEnd >= 0) {
        send(pending.slice(0, lineEnd + 1));
        pending = pending.slice(lineEnd + 1);
      } else if (pending.length > LIVE_LINE_HOLD_CHARS) {
        send(pending.slice(0, pending.length - keep));
        pending = pending.slice(pending.length - keep);
      }
    },
    end() {
      pending += decoder.decode();
      if (pending !== '') send(pending);
      pending = '';
    },
  };
}

/** How long a line without a newline may grow before its start is sent live anyway (characters). */
const LIVE_LINE_HOLD_CHARS = 8192;

/** A stage file that a command's output is appended to while it runs (`stdout.txt`, `stderr.txt`). */
interface LiveStageFile {
  /** Creates the file empty (replacing an earlier attempt's). */
  start(): Promise<void>;
  /** Queues a chunk of output. */
  write(chunk: Buffer): void;
  /** Appends what is left and waits until every append is stored; rejects with the first append's error. */
  end(): Promise<void>;
}

/** A {@link LiveStageFile} appending through `runtime.stage` (any run store), masked like the live events. */
function createLiveStageFile(runtime: HandlerRuntime, name: string): LiveStageFile {
  let queue: Promise<void> = Promise.resolve();
  let failure: unknown;
  const lines = createMaskedLines(runtime, (masked) => {
    queue = queue
      .then(() => runtime.stage.appendFile(name, masked))
      .catch((error: unknown) => {
        failure ??= error;
      });
  });
  return {
    start: () => runtime.stage.writeFile(name, ''),
    write: (chunk) => lines.write(chunk),
    async end() {
      lines.end();
      await queue;
      if (failure !== undefined) throw failure;
    },
  };
}

interface CommandRun {
  readonly stdout: string;
  readonly stderr: string;
  /** Bytes of stdout / stderr past the cap, drained and dropped. */
  readonly stdoutDroppedBytes: number;
  readonly stderrDroppedBytes: number;
  /** Undefined when a signal ended the command or it never started. */
  readonly exitCode: number | undefined;
  readonly signal: string | undefined;
  /** Why the command could not be started (missing working directory, ...). */
  readonly spawnError?: string;
}

interface RunCommandOptions {
  readonly runtime: HandlerRuntime;
  /** Run the command confined (`runtime.sandbox`): the working directory and `writable` writable, `network` or none. */
  readonly sandbox?: {
    readonly sandbox: CommandSandbox;
    readonly writable: readonly string[];
    readonly network: boolean;
  };
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Whether `env` is added to this process's environment (true) or replaces it (false). */
  readonly inheritEnv: boolean;
  readonly shell: boolean | string;
  readonly killGraceMs: number;
  /** Bytes kept of each stream; the rest is read and dropped so the command never sees a broken pipe. */
  readonly outputMaxBytes: number;
  /** Where the kept bytes of each stream go as they come. */
  readonly stdoutFile: LiveStageFile;
  readonly stderrFile: LiveStageFile;
}

/** Collects a stream's bytes up to a cap and keeps reading (and counting) past it. */
class CappedOutput {
  readonly #chunks: Buffer[] = [];
  #kept = 0;
  dropped = 0;
  constructor(
    readonly maxBytes: number,
    readonly file: LiveStageFile,
  ) {}
  add(chunk: Buffer): void {
    const room = this.maxBytes - this.#kept;
    if (room >= chunk.length) {
      this.#chunks.push(chunk);
      this.#kept += chunk.length;
      this.file.write(chunk);
      return;
    }
    if (room > 0) {
      this.#chunks.push(chunk.subarray(0, room));
      this.#kept += room;
      this.file.write(chunk.subarray(0, room));
    }
    this.dropped += chunk.length - Math.max(room, 0);
  }
  text(): string {
    return Buffer.concat(this.#chunks).toString('utf8');
  }
}

/**
 * How a command whose process group is recorded starts (`runtime.processGroups`): `/bin/sh` reads one line from its
 * stdin, which the runner sends once the group is recorded, then becomes the program given as its arguments (`<shell>
 * -c <command>`, or the sandbox wrapping it; the same process, so the same group) with stdin from /dev/null. A runner killed before it recorded the
 * group closes the pipe by dying: the read ends with nothing, and the command never runs. So a runner that takes the
 * run over always finds the group of a command that ran, and never runs a second copy beside it (issue 34 §10).
 */
const RECORDED_START = 'IFS= read -r _ || exit 125; exec "$@" </dev/null';

/**
 * Runs `command` in a shell with execa, as the leader of a new process group, and waits until it exited and its
 * output pipes closed (a background child that keeps them open is waited for, as a shell would). Whatever is left
 * of the group afterwards (`cmd &` with its output redirected) is ended: SIGTERM, then SIGKILL after
 * `killGraceMs`. The group is recorded with the run (`runtime.processGroups`) before the command starts
 * ({@link RECORDED_START}), so a runner that takes over after this one died can end it. Never rejects, unless the
 * group cannot be recorded (the command is then ended before it ran).
 */
async function runCommand(command: string, options: RunCommandOptions): Promise<CommandRun> {
  const { runtime } = options;
  const recorder = runtime.processGroups;
  const gated = recorder !== undefined && options.shell !== false && process.platform !== 'win32';
  const confined = options.sandbox;
  const shellFile = typeof options.shell === 'string' ? options.shell : '/bin/sh';
  // Under the sandbox the shell itself is the sandboxed program: `bwrap ... -- /bin/sh -c <command>`.
  const wrapped =
    confined === undefined
      ? undefined
      : confined.sandbox.wrap({
          file: shellFile,
          args: ['-c', command],
          cwd: runtime.workdir,
          writable: confined.writable,
          network: confined.network,
        });
  const common = {
    detached: true,
    reject: false,
    cwd: runtime.workdir,
    env: options.env,
    // Without an explicit environment, commands inherit this process's (execa's extendEnv).
    extendEnv: options.inheritEnv,
    stripFinalNewline: false,
    // We read the pipes ourselves: past the cap they are drained, never closed on the command
    // (docs/architecture.md "Tool nodes").
    buffer: false,
  } as const;
  const program = wrapped === undefined ? [shellFile, '-c', command] : [wrapped.file, ...wrapped.args];
  const subprocess = gated
    ? execa('/bin/sh', ['-c', RECORDED_START, 'sh', ...program], { ...common, stdin: 'pipe' })
    : wrapped === undefined
      ? execa(command, { ...common, shell: options.shell, stdin: 'ignore' })
      : execa(wrapped.file, [...wrapped.args], { ...common, stdin: 'ignore' });
  const stdout = new CappedOutput(options.outputMaxBytes, options.stdoutFile);
  const stderr = new CappedOutput(options.outputMaxBytes, options.stderrFile);
  const drained = Promise.all([drain(subprocess.stdout, stdout), drain(subprocess.stderr, stderr)]);
  const pid = subprocess.pid;
  forwardLiveOutput(subprocess.stdout, 'stdout', runtime);
  forwardLiveOutput(subprocess.stderr, 'stderr', runtime);
  const graceController = new AbortController();
  const onAbort = () => {
    if (pid === undefined) return;
    killProcessGroup(pid, 'SIGTERM');
    runtime.clock.sleep(options.killGraceMs, graceController.signal).then(
      () => killProcessGroup(pid, 'SIGKILL'),
      () => undefined,
    );
  };
  const untrack = pid === undefined ? undefined : trackProcessGroup(pid);
  let unrecord: (() => void) | undefined;
  try {
    unrecord = pid === undefined ? undefined : recorder?.record(pid);
  } catch (error) {
    // Unrecorded, it must not run: a later runner could not end it.
    if (pid !== undefined) killProcessGroup(pid, 'SIGKILL');
    await subprocess;
    untrack?.();
    throw error;
  }
  if (gated && pid !== undefined) {
    // The command may already be gone (aborted): a closed pipe is no fault.
    subprocess.stdin?.on('error', () => undefined);
    subprocess.stdin?.end('\n');
  }
  if (pid !== undefined) {
    if (runtime.abortSignal.aborted) onAbort();
    else runtime.abortSignal.addEventListener('abort', onAbort, { once: true });
  }
  try {
    const result = await subprocess;
    await drained;
    await Promise.all([options.stdoutFile.end(), options.stderrFile.end()]);
    const started = pid !== undefined && (result.exitCode !== undefined || result.signal !== undefined);
    const spawnError = started
      ? undefined
      : `command could not be started in ${runtime.workdir}: ${result.originalMessage}`;
    return {
      stdout: stdout.text(),
      stderr: stderr.text(),
      stdoutDroppedBytes: stdout.dropped,
      stderrDroppedBytes: stderr.dropped,
      exitCode: result.exitCode,
      signal: result.signal,
      ...(spawnError === undefined ? {} : { spawnError }),
    };
  } finally {
    runtime.abortSignal.removeEventListener('abort', onAbort);
    if (pid !== undefined && !runtime.abortSignal.aborted) {
      // The stage is over: nothing it started may outlive it (docs/architecture.md "Tool nodes").
      await endProcessGroup(pid, options.killGraceMs, runtime);
    }
    untrack?.();
    unrecord?.();
    // The group leader is gone; stop the pending SIGKILL only once nothing of the group can remain.
    if (!runtime.abortSignal.aborted) graceController.abort();
  }
}

function drain(stream: NodeJS.ReadableStream | null, output: CappedOutput): Promise<void> {
  if (stream === null) return Promise.resolve();
  return new Promise((resolve) => {
    stream.on('data', (chunk: Buffer) => output.add(chunk));
    stream.once('close', () => resolve());
    stream.once('error', () => resolve());
  });
}

/** SIGTERM to what is left of the group, then SIGKILL once `graceMs` passed with members still alive. */
async function endProcessGroup(pid: number, graceMs: number, runtime: HandlerRuntime): Promise<void> {
  if (!processGroupAlive(pid)) return;
  killProcessGroup(pid, 'SIGTERM');
  const pollMs = 20;
  for (let waitedMs = 0; waitedMs < graceMs; waitedMs += pollMs) {
    if (!processGroupAlive(pid)) return;
    await runtime.clock.sleep(pollMs);
  }
  killProcessGroup(pid, 'SIGKILL');
}
