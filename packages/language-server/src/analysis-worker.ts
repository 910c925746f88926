/**
 * The analysis worker (a worker thread of the language server): lints and formats pipelines off the main thread, so
 * that hover, completion and every other request stay answered while a large file is linted. It loads the project
 * module (plug-ins of `attractor.config.*`) and asks to be restarted when a config file it loaded changes, because an
 * ES module cannot be loaded twice in one thread.
 */
import { readFileSync, statSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { createDotParseCache } from '@attractor/dot';
import { BUILT_IN_HANDLER_TYPES, formatPipeline } from '@attractor/graph';
import type { WorkerCancel, WorkerReply, WorkerRequest, WorkerSetup } from './analysis-messages.js';
import { epochNow, type TimedPhase, threadCpuNow } from './analysis-phase.js';
import { analyzePipeline } from './analyze-pipeline.js';
import type { ProjectFacts, ProjectModule, ProjectSupport } from './project-support.js';

/** Files the pipeline names (sub-pipelines, prompt files) larger than this are not read. */
const MAX_FILE_BYTES = 10_000_000;

const setup = workerData as WorkerSetup;
/** The chunks of the texts linted so far: after an edit, only the statements it touched are matched again. */
const parseCache = createDotParseCache();
const port = parentPort!;
let projectModule: Promise<ProjectModule | undefined> | undefined;
/** A config failed to load in this worker: the next analysis needs a fresh one. */
let configFailed = false;
/** What each directory's project gave, and the config file's modification time when it was loaded. */
const projects = new Map<
  string,
  { readonly support: ProjectSupport | undefined; readonly facts: ProjectFacts; readonly mtimeMs?: number }
>();

/**
 * The analysis job of each document that waits for its debounce delay. A newer one replaces it: while the user types,
 * only the text after the last change is linted, and the delay runs here, where a busy main thread cannot hold it up.
 */
const waiting = new Map<string, { readonly id: number; readonly timer: NodeJS.Timeout }>();

port.on('message', (request: WorkerRequest | WorkerCancel) => {
  const receivedAt = epochNow();
  if (request.kind === 'format') {
    run(request, receivedAt, receivedAt);
    return;
  }
  const earlier = waiting.get(request.document);
  if (earlier !== undefined) {
    clearTimeout(earlier.timer);
    waiting.delete(request.document);
    port.postMessage({ kind: 'superseded', id: earlier.id } satisfies WorkerReply);
  }
  if (request.kind === 'cancel') return;
  const timer = setTimeout(
    () => {
      waiting.delete(request.document);
      run(request, receivedAt, epochNow());
    },
    Math.max(0, request.postedAt + request.delayMs - receivedAt),
  );
  waiting.set(request.document, { id: request.id, timer });
});

function run(request: WorkerRequest, receivedAt: number, startedAt: number): void {
  handle(request, receivedAt, startedAt).then(
    (reply) =>
      port.postMessage(reply, reply.kind === 'analyzed' ? [reply.diagnosticsJson.buffer as ArrayBuffer] : []),
    (error: unknown) =>
      port.postMessage({
        kind: 'failed',
        id: request.id,
        message: error instanceof Error ? error.message : String(error),
      } satisfies WorkerReply),
  );
}

async function handle(request: WorkerRequest, receivedAt: number, startedAt: number): Promise<WorkerReply> {
  if (request.kind === 'format') {
    try {
      return {
        kind: 'formatted',
        id: request.id,
        text: formatPipeline(
          request.text,
          request.filename === undefined ? {} : { filename: request.filename },
        ),
      };
    } catch {
      // A file that does not parse is not formatted; its diagnostics say why.
      return { kind: 'formatted', id: request.id };
    }
  }
  if (configFailed) return { kind: 'reload', id: request.id };
  const project = request.directory === undefined ? undefined : await projectOf(request.directory);
  if (project === 'reload') return { kind: 'reload', id: request.id };
  const support = project?.support;
  const linting = epochNow();
  const cpuBefore = threadCpuNow();
  let linted = linting;
  let lintCpu: number | undefined;
  const diagnostics = analyzePipeline(request.text, {
    parseCache,
    onLinted: (at) => {
      linted = at;
      const cpuAfter = threadCpuNow();
      lintCpu = cpuBefore === undefined || cpuAfter === undefined ? undefined : cpuAfter - cpuBefore;
    },
    ...(request.filename === undefined ? {} : { filename: request.filename, readGraphFile: readFile }),
    ...(support?.knownHandlerTypes === undefined ? {} : { knownHandlerTypes: support.knownHandlerTypes }),
    ...(support?.handlers === undefined ? {} : { handlers: support.handlers }),
    ...(support?.mcpServers === undefined ? {} : { mcpServers: support.mcpServers }),
  });
  const facts = project?.facts ?? factsOf(undefined);
  if (facts.configError !== undefined) {
    diagnostics.unshift({
      range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } },
      severity: 1,
      code: 'config',
      source: 'attractor',
      message: `${facts.configError}\nThis file is checked without the config's plug-ins until it loads.`,
    });
  }
  // As JSON in UTF-8, as the client receives them: the main thread writes these bytes as they are (its buffer is
  // transferred), so a large file's thousands of diagnostics cost it neither decoding, encoding nor a copy.
  const diagnosticsJson = new TextEncoder().encode(JSON.stringify(diagnostics));
  const converted = epochNow();
  const phases: TimedPhase[] = [
    { name: 'to-worker', start: request.postedAt, end: receivedAt },
    { name: 'debounce', start: receivedAt, end: startedAt },
    { name: 'project', start: startedAt, end: linting },
    { name: 'lint', start: linting, end: linted, ...(lintCpu === undefined ? {} : { cpu: lintCpu }) },
    { name: 'convert', start: linted, end: converted },
  ];
  return {
    kind: 'analyzed',
    id: request.id,
    diagnosticsJson,
    project: facts,
    phases,
    postedAt: epochNow(),
  };
}

/** The project of a directory: loaded once, loaded again while it has no config, `reload` once its config changed. */
async function projectOf(
  directory: string,
): Promise<{ readonly support: ProjectSupport | undefined; readonly facts: ProjectFacts } | 'reload'> {
  const known = projects.get(directory);
  if (known?.facts.configPath !== undefined) {
    return modifiedAt(known.facts.configPath) === known.mtimeMs ? known : 'reload';
  }
  const module = await loadProjectModule();
  if (module === undefined) {
    const none = { support: undefined, facts: factsOf(undefined) };
    projects.set(directory, none);
    return none;
  }
  let loaded: { support: ProjectSupport | undefined; facts: ProjectFacts; mtimeMs?: number };
  try {
    const support = await module.loadProject({ directory });
    const mtimeMs = support.configPath === undefined ? undefined : modifiedAt(support.configPath);
    loaded = { support, facts: factsOf(support), ...(mtimeMs === undefined ? {} : { mtimeMs }) };
  } catch (error) {
    // A config that does not load: said on the file. Node keeps a module that failed to load, so the next analysis
    // asks for a fresh worker, which loads the config as it is then.
    configFailed = true;
    return {
      support: undefined,
      facts: { ...factsOf(undefined), configError: error instanceof Error ? error.message : String(error) },
    };
  }
  projects.set(directory, loaded);
  return loaded;
}

function loadProjectModule(): Promise<ProjectModule | undefined> {
  projectModule ??=
    setup.projectModule === undefined
      ? Promise.resolve(undefined)
      : (import(setup.projectModule) as Promise<ProjectModule>);
  return projectModule;
}

function factsOf(support: ProjectSupport | undefined): ProjectFacts {
  const handlers = [...(support?.handlers ?? new Map())].map(([type, info]) => ({
    type,
    attributeKeys: info.attributeKeys ?? [],
    ...(info.outcomes === undefined ? {} : { outcomes: info.outcomes }),
  }));
  return {
    ...(support?.configPath === undefined ? {} : { configPath: support.configPath }),
    handlerTypes: [...(support?.knownHandlerTypes ?? BUILT_IN_HANDLER_TYPES)],
    handlers,
    models: support?.models ?? [],
  };
}

function modifiedAt(path: string): number | undefined {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return undefined;
  }
}

/** The text of a file a pipeline names, `undefined` when there is none; a file too large or unreadable throws. */
function readFile(path: string): string | undefined {
  let size: number;
  try {
    const stats = statSync(path);
    if (!stats.isFile()) throw new Error('not a regular file');
    size = stats.size;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    throw error;
  }
  if (size > MAX_FILE_BYTES) throw new Error(`larger than ${MAX_FILE_BYTES} bytes`);
  return readFileSync(path, 'utf8');
}
