/** The messages between the language server and its analysis worker (`analysis-worker.ts`). */
import type { Diagnostic } from 'vscode-languageserver';
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
      readonly text: string;
      /** The pipeline's absolute path; absent for an unsaved file. */
      readonly filename?: string;
      /** Where its project is looked for (its directory). */
      readonly directory?: string;
    }
  | { readonly kind: 'format'; readonly id: number; readonly text: string; readonly filename?: string };

/** The worker's answer to the request with the same `id`. */
export type WorkerReply =
  | {
      readonly kind: 'analyzed';
      readonly id: number;
      readonly diagnostics: Diagnostic[];
      readonly project: ProjectFacts;
    }
  /** `text` absent: the file does not parse. */
  | { readonly kind: 'formatted'; readonly id: number; readonly text?: string }
  /** A config file it loaded has changed: start a new worker and send the request again. */
  | { readonly kind: 'reload'; readonly id: number }
  | { readonly kind: 'failed'; readonly id: number; readonly message: string };
