/**
 * The interviewer of runs started by the server (spec §6, §9.5): a question waits in a pending list until an
 * HTTP client answers it. The engine's interviewer wrapper applies the node's timeout and default choice, and aborts
 * the wait through the signal; the question then leaves the list.
 */
import type { Answer, AskOptions, Interviewer, Question } from '@attractor/engine';
import { ApiError } from './errors/api-error.js';

/** A question waiting for an answer, as listed by `GET /pipelines/{id}/questions`. */
export interface PendingQuestion {
  /** Unique among the run's pending questions; usually `question.id` (`<node id>:<visit>`). */
  readonly id: string;
  readonly question: Question;
  /** When it was asked (ISO-8601). */
  readonly askedAt: string;
}

/** What a client sends to answer: an option key or label, `yes`/`no`, or free text. */
export interface AnswerInput {
  /** The option key (or label) of a multiple-choice question, `yes`/`no` for yes/no questions, or free text. */
  readonly value?: string;
  /** Free text, for free-form questions. */
  readonly text?: string;
}

/** Options of {@link createHttpInterviewer}. */
export interface HttpInterviewerOptions {
  /** ISO-8601 time stamps of `askedAt`. */
  readonly now: () => string;
  /** Called whenever the pending list changes (a question arrives, is answered or abandoned). */
  readonly onChange?: () => void;
}

/** An {@link Interviewer} whose questions are answered through {@link HttpInterviewer.answer}. */
export interface HttpInterviewer extends Interviewer {
  /** The questions waiting for an answer, oldest first. */
  pending(): PendingQuestion[];
  /**
   * Answers a pending question and returns the {@link Answer} handed to the handler.
   * @throws {ApiError} `QUESTION_NOT_FOUND` (404) when no pending question has this id (answered, timed out,
   *   or never asked); `INVALID_ANSWER` (400) when the answer does not fit the question (not one of the options,
   *   not yes/no, empty text).
   */
  answer(id: string, input: AnswerInput): Answer;
}

/**
 * Creates the interviewer of one server run.
 *
 * @example
 * const interviewer = createHttpInterviewer({ now: () => new Date().toISOString() });
 * // ... the run asks; an HTTP handler later calls:
 * interviewer.answer('approve:1', { value: 'Y' });
 */
export function createHttpInterviewer(options: HttpInterviewerOptions): HttpInterviewer {
  const waiting = new Map<
    string,
    { readonly entry: PendingQuestion; readonly resolve: (answer: Answer) => void }
  >();
  const changed = () => options.onChange?.();

  const ask = (question: Question, askOptions?: AskOptions): Promise<Answer> =>
    new Promise<Answer>((resolve, reject) => {
      const signal = askOptions?.abortSignal;
      if (signal?.aborted) {
        reject(signal.reason);
        return;
      }
      let id = question.id === '' ? question.stage : question.id;
      for (let suffix = 2; waiting.has(id); suffix++) id = `${question.id}#${suffix}`;
      const onAbort = () => {
        waiting.delete(id);
        changed();
        reject(signal?.reason);
      };
      waiting.set(id, {
        entry: { id, question, askedAt: options.now() },
        resolve: (answer) => {
          signal?.removeEventListener('abort', onAbort);
          waiting.delete(id);
          changed();
          resolve(answer);
        },
      });
      signal?.addEventListener('abort', onAbort, { once: true });
      changed();
    });

  return {
    ask,
    pending: () => [...waiting.values()].map((waiter) => waiter.entry),
    answer(id, input) {
      const waiter = waiting.get(id);
      if (waiter === undefined) {
        throw new ApiError({
          status: 404,
          code: 'QUESTION_NOT_FOUND',
          message: `No pending question "${id}": it was answered, timed out, or never asked. GET the run's questions for the current ones.`,
        });
      }
      const answer = toAnswer(waiter.entry.question, input);
      waiter.resolve(answer);
      return answer;
    },
  };
}

/**
 * Turns a client's answer into the engine's {@link Answer} for a question (spec §6.3), or refuses it.
 * @throws {ApiError} `INVALID_ANSWER` (400) naming what the question accepts.
 */
export function toAnswer(question: Question, input: AnswerInput): Answer {
  const raw = (input.value ?? input.text ?? '').trim();
  const invalid = (message: string) => new ApiError({ status: 400, code: 'INVALID_ANSWER', message });
  switch (question.type) {
    case 'multiple_choice': {
      const wanted = raw.toLowerCase();
      const option =
        question.options.find((candidate) => candidate.key.toLowerCase() === wanted) ??
        question.options.find((candidate) => candidate.label.toLowerCase() === wanted) ??
        question.options.find((candidate) => stripAccelerator(candidate.label).toLowerCase() === wanted);
      if (option === undefined) {
        const choices = question.options.map((candidate) => `"${candidate.key}" (${candidate.label})`);
        throw invalid(
          `"${raw}" is not an option of question "${question.id}". Send {"value": <key>} with one of: ${choices.join(', ')}.`,
        );
      }
      return { value: option.key, selectedOption: option };
    }
    case 'yes_no':
    case 'confirmation': {
      const normalized = raw.toLowerCase();
      if (normalized === 'yes' || normalized === 'y') return { value: 'yes' };
      if (normalized === 'no' || normalized === 'n') return { value: 'no' };
      throw invalid(`Question "${question.id}" takes {"value": "yes"} or {"value": "no"}, not "${raw}".`);
    }
    case 'freeform': {
      const text = input.text ?? input.value ?? '';
      if (text.trim() === '') throw invalid(`Question "${question.id}" needs a non-empty {"text": ...}.`);
      return { value: text, text };
    }
  }
}

/** A label without its accelerator prefix (spec §4.6: `[K] Label`, `K) Label`, `K - Label`). */
function stripAccelerator(label: string): string {
  return label.replace(/^\s*(\[\w+\]|\w\)|\w\s+-)\s*/, '');
}
