/**
 * Parses and validates a pipeline in a worker thread (issue 20 §3), so a large or hostile pipeline never blocks
 * the server's event loop: the worker has a time limit and a heap limit, and a pipeline over either is refused with
 * 422 naming the limit. The run itself needs the `Graph` on the main thread; it is built there only for a pipeline
 * the worker found valid within the limits.
 */
import { Worker } from 'node:worker_threads';
import { ApiError } from './errors/api-error.js';
import type { PipelineLimits } from './pipeline-limits.js';

/** What the worker gets (structured-cloned). */
export interface ValidatePipelineInput {
  readonly source: string;
  /** The file name diagnostics carry (the real path for a file of the pipelines directory). */
  readonly filename: string;
  readonly knownHandlerTypes: readonly string[];
  readonly allowTools: boolean;
  /** Set for a file of the pipelines directory: its `graph_ref`s are read from there. */
  readonly pipelinesDir?: string;
}

/** What the worker answers. */
export interface ValidatePipelineOutput {
  readonly nodes: number;
  readonly valid: boolean;
}

// From src/ (tests) and from dist/ alike, the compiled worker is ../dist/validate-pipeline-worker.js.
const WORKER_URL = new URL('../dist/validate-pipeline-worker.js', import.meta.url);

/**
 * Runs the worker on `input` and resolves with its node count and whether the pipeline is valid.
 * @throws {ApiError} `LIMIT_EXCEEDED` (422) when validation takes longer than `validateTimeoutMs` or needs more
 *   heap than `validateHeapMb` (deep or wide input the limits of the text scan let through).
 */
export function validatePipelineInWorker(
  input: ValidatePipelineInput,
  limits: PipelineLimits,
): Promise<ValidatePipelineOutput> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(WORKER_URL, {
      workerData: input,
      resourceLimits: { maxOldGenerationSizeMb: limits.validateHeapMb },
    });
    let settled = false;
    const settle = (action: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      void worker.terminate();
      action();
    };
    const timer = setTimeout(
      () =>
        settle(() =>
          reject(
            new ApiError({
              status: 422,
              code: 'LIMIT_EXCEEDED',
              message: `Validating the pipeline took longer than ${limits.validateTimeoutMs} ms (validateTimeoutMs); make it smaller or split it into sub-pipelines (graph_ref).`,
              details: { limit: 'validateTimeoutMs' },
            }),
          ),
        ),
      limits.validateTimeoutMs,
    );
    worker.once('message', (output: ValidatePipelineOutput) => settle(() => resolve(output)));
    worker.once('error', (error: Error & { code?: string }) =>
      settle(() =>
        reject(
          error.code === 'ERR_WORKER_OUT_OF_MEMORY' || error instanceof RangeError
            ? new ApiError({
                status: 422,
                code: 'LIMIT_EXCEEDED',
                message: `Validating the pipeline needed more than ${limits.validateHeapMb} MB of memory or stack (validateHeapMb); make it smaller or flatter.`,
                details: { limit: 'validateHeapMb' },
              })
            : error,
        ),
      ),
    );
    worker.once('exit', (code) =>
      settle(() => reject(new Error(`the pipeline validation worker exited with code ${code}`))),
    );
  });
}
