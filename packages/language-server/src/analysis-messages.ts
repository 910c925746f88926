/** The messages between the language server and its analysis worker (`analysis-worker.ts`). */
import type { TimedPhase } from './analysis-phase.js';
import type { ProjectFacts } from './project-support.js';

/** The worker's `workerData`. */
export interface WorkerSetup {
  /** URL of the project module (`LanguageServerOptions.projectModule`). */
  readonly projectModule?: string;
}

/** A job for the worker. */
export type WorkerRequest =
  | {
      readonly kind: 'analyze';
      readonly id: number;
      /**
       * The document (its URI): a newer job for the same document that arrives before this one has started replaces
       * it (this one is answered `superseded`).
       */
      readonly document: string;
      /** Milliseconds after `postedAt` before it starts (the debounce delay after a change). */
      readonly delayMs: number;
      readonly text: string;
      /** The pipeline's absolute path; absent for an unsaved file. */
      readonly filename?: string;
      /** Where its project is looked for (its directory). */
      readonly directory?: string;
      /** When it was posted (epoch milliseconds), for the `to-worker` phase. */
      readonly postedAt: number;
    }
  | { readonly kind: 'format'; readonly id: number; readonly text: string; readonly filename?: string };

/** Drops the analysis job of `document` that waits for its delay, if any (answered `superseded`): it was closed. */
export interface WorkerCancel {
  readonly kind: 'cancel';
  readonly document: string;
}

/** The worker's answer to the request with the same `id`. */
export type WorkerReply =
  | {
      readonly kind: 'analyzed';
      readonly id: number;
      /** The LSP diagnostics (`Diagnostic[]`) as JSON, in UTF-8: its buffer is transferred, not copied. */
      readonly diagnosticsJson: Uint8Array;
      readonly project: ProjectFacts;
      /** The phases timed in the worker (`to-worker`, `debounce`, `project`, `lint`, `convert`). */
      readonly phases: readonly TimedPhase[];
      /** When it was posted (epoch milliseconds), for the `from-worker` phase. */
      readonly postedAt: number;
    }
  /** A newer job for the same document arrived before this one started: this one is not done. */
  | { readonly kind: 'superseded'; readonly id: number }
  /** `text` absent: the file does not parse. */
  | { readonly kind: 'formatted'; readonly id: number; readonly text?: string }
  /** A config file it loaded has changed: start a new worker and send the request again. */
  | { readonly kind: 'reload'; readonly id: number }
  | { readonly kind: 'failed'; readonly id: number; readonly message: string };
