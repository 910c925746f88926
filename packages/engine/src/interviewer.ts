/**
 * The human-in-the-loop contract of spec §6: every human interaction goes through an `Interviewer`.
 * Built-in implementations (auto-approve, console, callback, queue, recording) live in `@attractor/handlers`
 * and the CLI.
 */
import type { JsonValue } from './json-value.js';

/** The kinds of question of spec §6.2. `confirmation` is a yes/no that confirms an action. */
export type QuestionType = 'yes_no' | 'multiple_choice' | 'freeform' | 'confirmation';

/** One choice of a `multiple_choice` question (spec §6.2). */
export interface QuestionOption {
  /** Accelerator key, e.g. `Y` (spec §4.6 accelerator parsing). */
  readonly key: string;
  /** Display text, e.g. `[Y] Yes, deploy`. */
  readonly label: string;
}

/** A question put to a human (spec §6.2). */
export interface Question {
  /** Unique within the run, e.g. `<node id>:<visit>`; lets a web UI answer a pending question by id. */
  readonly id: string;
  readonly text: string;
  readonly type: QuestionType;
  /** The choices of a `multiple_choice` question, in edge declaration order; empty otherwise. */
  readonly options: readonly QuestionOption[];
  /** The answer to use when the question times out (spec §6.5). */
  readonly default?: Answer;
  /**
   * How long to wait for an answer, in milliseconds. Unset: wait indefinitely. The engine applies it
   * (spec §6.5): on expiry it answers with `default`, or `{ value: 'timeout' }`.
   */
  readonly timeoutMs?: number;
  /** The id of the node that asks (spec §6.2 `stage`). */
  readonly stage: string;
  /** Arbitrary extra data for frontends. */
  readonly metadata?: Readonly<Record<string, JsonValue>>;
}

/**
 * An answer (spec §6.3). `value` is an option key for `multiple_choice`, `yes`/`no` for yes/no and
 * confirmation questions, the text for `freeform`, or one of the special values `skipped` (the human declined)
 * and `timeout` (no answer in time).
 */
export interface Answer {
  readonly value: string;
  /** The chosen option, for `multiple_choice`. */
  readonly selectedOption?: QuestionOption;
  /** Free text, for `freeform`. */
  readonly text?: string;
}

/** Options of {@link Interviewer.ask}. */
export interface AskOptions {
  /** Aborted when the question is no longer needed (timeout, run cancelled); the interviewer should stop waiting. */
  readonly abortSignal?: AbortSignal;
}

/**
 * A human interaction frontend (spec §6.1): CLI, web UI, chat bot, or a scripted queue in tests.
 *
 * Handlers receive the interviewer through `HandlerRuntime.interviewer`, already wrapped by the engine: the
 * wrapper emits `interview.started` / `interview.completed` / `interview.timeout` events and applies
 * `question.timeoutMs`.
 */
export interface Interviewer {
  /** Presents one question and resolves with the answer. Should reject or resolve promptly when aborted. */
  ask(question: Question, options?: AskOptions): Promise<Answer>;
  /** Presents several questions at once (spec §6.1); when absent, callers ask them one by one. */
  askMultiple?(questions: readonly Question[], options?: AskOptions): Promise<Answer[]>;
  /** Shows an informational message attributed to a stage (spec §6.1); no answer expected. */
  inform?(message: string, stage: string): void | Promise<void>;
}
