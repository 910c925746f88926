/**
 * An interviewer for tests that answers from a list and records the questions.
 */
import type { Answer, Interviewer, Question } from '../interviewer.js';

/** An {@link Interviewer} with its recorded questions. */
export interface ScriptedInterviewer extends Interviewer {
  readonly questions: Question[];
}

/**
 * Creates an interviewer that answers with the given answers in order (a string is an answer value), then
 * `{ value: 'skipped' }` (spec §6.4 QueueInterviewer). The answer `'never'` never resolves (until aborted), for
 * timeout tests.
 */
export function createScriptedInterviewer(answers: readonly (Answer | string)[] = []): ScriptedInterviewer {
  const queue = [...answers];
  const questions: Question[] = [];
  return {
    questions,
    ask(question, options) {
      questions.push(question);
      const next = queue.shift();
      if (next === 'never') {
        return new Promise<Answer>((_, reject) => {
          options?.abortSignal?.addEventListener('abort', () => reject(options.abortSignal?.reason), {
            once: true,
          });
        });
      }
      if (next === undefined) return Promise.resolve({ value: 'skipped' });
      return Promise.resolve(typeof next === 'string' ? { value: next } : next);
    },
  };
}
