/**
 * A {@link HandlerRuntime} for unit-testing a handler without running a pipeline.
 */

import { basename, dirname } from 'node:path';
import type { CodergenBackend } from '../codergen-backend.js';
import { createArtifactStore } from '../file-artifact-store.js';
import { createFileRunStore } from '../file-run-store.js';
import type { HandlerRuntime, StageFidelity } from '../handler-runtime.js';
import type { Interviewer } from '../interviewer.js';
import type { EmittableEvent } from '../pipeline-event.js';
import { createStageWorkspace } from '../stage-workspace.js';
import { createTestClock, type TestClock } from './test-clock.js';

/** Options of {@link createTestRuntime}: any runtime field, plus the backend and interviewer. */
export interface TestRuntimeOptions
  extends Partial<Omit<HandlerRuntime, 'emit' | 'interviewer' | 'backend'>> {
  /**
   * The stage directory. Default: `'/tmp/attractor-test-stage'`. Unless `stage` is given, the stage workspace is
   * this directory through a file store whose run directory is its parent (files are created on first write).
   */
  readonly stageDir?: string;
  readonly interviewer?: Interviewer;
  readonly backend?: CodergenBackend;
}

/** A {@link HandlerRuntime} that records what the handler emitted. */
export interface TestRuntime extends HandlerRuntime {
  /** Everything passed to `emit`, in order. */
  readonly emitted: EmittableEvent[];
  readonly clock: TestClock | HandlerRuntime['clock'];
}

const DEFAULT_FIDELITY: StageFidelity = { mode: 'compact', threadKey: 'test-thread', preamble: '' };

/**
 * Creates a runtime for calling `handler.execute(node, context, graph, logsRoot, runtime)` directly in a test.
 * `runBranch` and `runChild` reject unless overridden (they need the engine: use `runPipeline` for those).
 * Without an interviewer, `interviewer.ask` rejects like the engine's does.
 *
 * @example
 * const runtime = createTestRuntime({ stageDir: await mkdtemp(join(tmpdir(), 'stage-')) });
 * const outcome = await handler.execute(node, new Context(), graph, dirname(runtime.stageDir), runtime);
 */
export function createTestRuntime(options: TestRuntimeOptions = {}): TestRuntime {
  const emitted: EmittableEvent[] = [];
  const clock = options.clock ?? createTestClock();
  const { interviewer, backend, ...rest } = options;
  const stageDir = options.stageDir ?? '/tmp/attractor-test-stage';
  const stage =
    options.stage ??
    createStageWorkspace(
      createFileRunStore({ logsRoot: dirname(stageDir), createDirectory: false }),
      basename(stageDir),
      { path: stageDir, sync: async () => {} },
    );
  const runtime: TestRuntime = {
    abortSignal: new AbortController().signal,
    stageDir,
    stage,
    runId: 'test-run',
    workdir: process.cwd(),
    visit: 1,
    attempt: 1,
    fidelity: DEFAULT_FIDELITY,
    artifacts: createArtifactStore({ clock }),
    runBranch: () =>
      Promise.reject(
        new Error('runBranch is not available in createTestRuntime; override it or use runPipeline'),
      ),
    runChild: () => {
      throw new Error('runChild is not available in createTestRuntime; override it or use runPipeline');
    },
    ...rest,
    clock,
    emitted,
    emit: (event) => {
      emitted.push(event);
    },
    interviewer: interviewer ?? {
      ask: (question) =>
        Promise.reject(
          new Error(
            `Node "${question.stage}" needs a human answer, but the test runtime has no interviewer.`,
          ),
        ),
    },
  };
  return backend === undefined ? runtime : { ...runtime, backend };
}
