/**
 * Builds a real `CodergenRequest` for backend tests: temp working and stage directories, a graph from
 * `createTestGraph`, and recorded events and steering.
 */
import { mkdir, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type CodergenRequest, Context, type EmittableEvent, type JsonValue } from '@attractor/engine';
import { createTestGraph, type TestNodeSpec } from '@attractor/engine/test';
import type { FidelityMode } from '@attractor/graph';

/** A request plus what the backend emitted. */
export interface TestStage {
  readonly request: CodergenRequest;
  readonly events: EmittableEvent[];
  readonly workdir: string;
  readonly stageDir: string;
  /** The run's logs root (the parent of `stageDir`), the run key of the backend's sessions. */
  readonly logsRoot: string;
}

/** Options of {@link createStageRequest}. */
export interface StageRequestOptions {
  readonly node?: TestNodeSpec;
  readonly prompt?: string;
  readonly fidelity?: FidelityMode;
  readonly threadKey?: string;
  readonly preamble?: string;
  readonly workdir?: string;
  readonly context?: Readonly<Record<string, JsonValue>>;
  /** Steering batches returned by successive `takeSteering()` calls. */
  readonly steering?: readonly (readonly string[])[];
  readonly graphSettings?: Parameters<typeof createTestGraph>[0]['settings'];
  readonly abortSignal?: AbortSignal;
  /** The run's logs root, to put several stages in one run (sessions are kept per run). Default: a fresh one. */
  readonly logsRoot?: string;
}

/** Creates a request for one stage in fresh temp directories. */
export async function createStageRequest(options: StageRequestOptions = {}): Promise<TestStage> {
  const root = await mkdtemp(join(tmpdir(), 'backend-ai-sdk-'));
  const workdir = options.workdir ?? join(root, 'work');
  const nodeSpec: TestNodeSpec = options.node ?? { id: 'work' };
  const logsRoot = options.logsRoot ?? join(root, 'logs');
  const stageDir = join(logsRoot, nodeSpec.id);
  await mkdir(workdir, { recursive: true });
  await mkdir(stageDir, { recursive: true });
  const graph = createTestGraph({
    nodes: [nodeSpec],
    edges: [`start -> ${nodeSpec.id} -> exit`],
    ...(options.graphSettings === undefined ? {} : { settings: options.graphSettings }),
  });
  const node = graph.node(nodeSpec.id)!;
  const events: EmittableEvent[] = [];
  const steering = [...(options.steering ?? [])];
  const request: CodergenRequest = {
    node,
    graph,
    prompt: options.prompt ?? 'Do the work.',
    context: new Context(options.context ?? {}),
    fidelity: options.fidelity ?? 'compact',
    threadKey: options.threadKey ?? nodeSpec.id,
    preamble: options.preamble ?? '',
    abortSignal: options.abortSignal ?? new AbortController().signal,
    stageDir,
    workdir,
    emit: (event) => events.push(event),
    takeSteering: async () => [...(steering.shift() ?? [])],
  };
  return { request, events, workdir, stageDir, logsRoot };
}

/** The parsed lines of a stage's transcript. */
export async function readTranscript(stageDir: string): Promise<Record<string, unknown>[]> {
  const { readFile } = await import('node:fs/promises');
  const text = await readFile(join(stageDir, 'transcript.jsonl'), 'utf8');
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}
