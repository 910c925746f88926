import type { Answer, AskOptions, Interviewer, Question } from '@attractor/engine';

/** The function a {@link createCallbackInterviewer} delegates to. It may answer synchronously or asynchronously. */
export type InterviewerCallback = (question: Question, options: AskOptions) => Answer | Promise<Answer>;

/** Options of {@link createCallbackInterviewer}. */
export interface CallbackInterviewerOptions {
  /** Answers each question (spec §6.4 CallbackInterviewer). */
  readonly ask: InterviewerCallback;
  /** Receives `inform` messages (spec §6.1). Default: ignored. */
  readonly inform?: (message: string, stage: string) => void | Promise<void>;
}

/**
 * Creates the CallbackInterviewer of spec §6.4: delegates every question to a function, for integrating a web UI,
 * a chat bot or an API. The callback receives the abort signal in its options: stop waiting when it aborts.
 *
 * @example
 * const interviewer = createCallbackInterviewer({ ask: async (question) => ({ value: await askSlack(question.text) }) });
 */
export function createCallbackInterviewer(options: CallbackInterviewerOptions): Interviewer {
  const interviewer: Interviewer = {
    ask: async (question, askOptions) => options.ask(question, askOptions ?? {}),
  };
  if (options.inform !== undefined) {
    const inform = options.inform;
    interviewer.inform = (message, stage) => inform(message, stage);
  }
  return interviewer;
}
