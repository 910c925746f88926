import { Worker } from 'node:worker_threads';
import type { WorkerCancel, WorkerReply, WorkerRequest, WorkerSetup } from './analysis-messages.js';
import { epochNow, type TimedPhase } from './analysis-phase.js';
import { EncodedDiagnostics } from './encoded-diagnostics.js';
import type { ProjectFacts } from './project-support.js';

/** Distributes a request type over its union members, leaving out `id`. */
type WithoutId<TRequest> = TRequest extends unknown ? Omit<TRequest, 'id'> : never;

/** What an analysis gives. */
export interface Analysis {
  /** As the worker encoded them: the server writes them to the client without decoding them. */
  readonly diagnostics: EncodedDiagnostics;
  readonly project: ProjectFacts;
  /** Its phases from the job's posting to the reply's arrival on the main thread. */
  readonly phases: readonly TimedPhase[];
}

/**
 * The main thread's side of the analysis worker: sends it jobs and resolves each with its reply. A worker that asks to
 * be replaced (its project's config changed) or that dies is replaced, and the jobs it had are sent to the new one.
 */
export class AnalysisService {
  readonly #setup: WorkerSetup;
  readonly #workerUrl: URL;
  #worker: Worker | undefined;
  #nextId = 1;
  readonly #pending = new Map<
    number,
    { readonly request: WorkerRequest; resolve(reply: WorkerReply): void; reject(error: Error): void }
  >();
  #disposed = false;

  constructor(options: { readonly workerUrl: URL; readonly projectModule?: string }) {
    this.#workerUrl = options.workerUrl;
    this.#setup = options.projectModule === undefined ? {} : { projectModule: options.projectModule };
  }

  /**
   * Lints a pipeline's text (with its project's plug-ins when it has a file name) once `delayMs` milliseconds have
   * passed, unless a newer job for the same `document` comes first: then it resolves with `undefined`.
   */
  async analyze(job: {
    readonly document: string;
    readonly delayMs: number;
    readonly text: string;
    readonly filename?: string;
    readonly directory?: string;
  }): Promise<Analysis | undefined> {
    const reply = await this.#send({ kind: 'analyze', ...job, postedAt: epochNow() });
    if (reply.kind === 'superseded') return undefined;
    if (reply.kind !== 'analyzed') throw new Error(`unexpected reply ${reply.kind}`);
    return {
      diagnostics: new EncodedDiagnostics(reply.diagnosticsJson),
      project: reply.project,
      phases: [...reply.phases, { name: 'from-worker', start: reply.postedAt, end: epochNow() }],
    };
  }

  /** Drops the analysis of `document` that waits for its delay, if any (its `analyze` resolves with `undefined`). */
  cancel(document: string): void {
    this.#worker?.postMessage({ kind: 'cancel', document } satisfies WorkerCancel);
  }

  /** The text in the canonical layout, or `undefined` when it does not parse. */
  async format(job: { readonly text: string; readonly filename?: string }): Promise<string | undefined> {
    const reply = await this.#send({ kind: 'format', ...job });
    if (reply.kind !== 'formatted') throw new Error(`unexpected reply ${reply.kind}`);
    return reply.text;
  }

  /** Stops the worker; pending jobs are rejected. */
  async dispose(): Promise<void> {
    this.#disposed = true;
    for (const { reject } of this.#pending.values())
      reject(new Error('the language server is shutting down'));
    this.#pending.clear();
    await this.#worker?.terminate();
    this.#worker = undefined;
  }

  #send(job: WithoutId<WorkerRequest>): Promise<WorkerReply> {
    if (this.#disposed) return Promise.reject(new Error('the language server is shutting down'));
    const request = { ...job, id: this.#nextId++ } as WorkerRequest;
    return new Promise((resolve, reject) => {
      this.#pending.set(request.id, { request, resolve, reject });
      this.#ensureWorker().postMessage(request);
    });
  }

  #ensureWorker(): Worker {
    if (this.#worker !== undefined) return this.#worker;
    const worker = new Worker(this.#workerUrl, { workerData: this.#setup });
    worker.on('message', (reply: WorkerReply) => this.#reply(worker, reply));
    worker.on('error', (error) => this.#lost(worker, error));
    worker.on('exit', (code) =>
      this.#lost(worker, new Error(`the analysis worker stopped (exit code ${code})`)),
    );
    this.#worker = worker;
    return worker;
  }

  #reply(worker: Worker, reply: WorkerReply): void {
    if (reply.kind === 'reload') {
      this.#restart(worker);
      return;
    }
    const pending = this.#pending.get(reply.id);
    if (pending === undefined) return;
    this.#pending.delete(reply.id);
    if (reply.kind === 'failed') pending.reject(new Error(reply.message));
    else pending.resolve(reply);
  }

  /** Replaces `worker` (if it is still the current one) and sends it every job that has no reply yet. */
  #restart(worker: Worker): void {
    if (this.#worker !== worker || this.#disposed) return;
    this.#worker = undefined;
    worker.removeAllListeners();
    void worker.terminate();
    const next = this.#ensureWorker();
    for (const { request } of [...this.#pending.values()].sort(
      (left, right) => left.request.id - right.request.id,
    ))
      next.postMessage(request);
  }

  #lost(worker: Worker, error: Error): void {
    if (this.#worker !== worker) return;
    this.#worker = undefined;
    // A job that crashed the worker would crash the next one too: it fails, with the reason.
    for (const { reject } of this.#pending.values()) reject(error);
    this.#pending.clear();
  }
}
