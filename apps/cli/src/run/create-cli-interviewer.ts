import type { Answer, AskOptions, Interviewer, Question } from '@attractor/engine';
import { findQuestionOption } from '@attractor/handlers';
import type { RunDisplay } from '../display/run-display.js';

/** Options of {@link createCliInterviewer}. */
export interface CliInterviewerOptions {
  /** `--answer` values, used in order, one per question. */
  readonly answers: readonly string[];
  /** `--auto-approve`: answer with the first option (yes for yes/no questions). */
  readonly autoApprove: boolean;
  /** Asks a person in the terminal; absent when stdin is not a terminal. */
  readonly console?: Interviewer;
  /** Paused while the console interviewer asks, so the live area does not overwrite the question. */
  readonly display: RunDisplay;
}

/** The CLI's interviewer: an {@link Interviewer} that also tells which `--answer` values no question took. */
export interface CliInterviewer extends Interviewer {
  /** The `--answer` values not used so far, in the order given. */
  unusedAnswers(): readonly string[];
}

/**
 * The interviewer of `run` and `resume` (spec §6): queued `--answer` values first, then `--auto-approve`, then
 * the console when stdin is a terminal. With none of them, a question fails the stage with a message that says
 * to pass `--answer` or `--auto-approve`.
 */
export function createCliInterviewer(options: CliInterviewerOptions): CliInterviewer {
  const queue = [...options.answers];
  return {
    unusedAnswers: () => [...queue],
    async ask(question: Question, askOptions?: AskOptions): Promise<Answer> {
      const key = queue.shift();
      if (key !== undefined) return answerFromKey(question, key);
      if (options.autoApprove) return autoApproveAnswer(question);
      if (options.console !== undefined) {
        options.display.pause();
        try {
          return await options.console.ask(question, askOptions);
        } finally {
          options.display.resume();
        }
      }
      const choices =
        question.options.length === 0
          ? ''
          : ` (options: ${question.options.map((option) => option.key).join(', ')})`;
      throw new Error(
        `Human gate "${question.stage}" asks "${question.text}" but nobody can answer: stdin is not a terminal${options.answers.length > 0 ? ' and every --answer was used' : ''}. Pass --answer <key>${choices} or --auto-approve.`,
      );
    },
  };
}

/**
 * Turns an `--answer` value into an {@link Answer}: for a multiple-choice question the option it names
 * (`findQuestionOption` of `@attractor/handlers`: key, label with or without its accelerator prefix, or target node
 * id; trimmed, case-insensitive); `y`/`yes`/`n`/`no` for yes/no questions; the text itself for freeform ones.
 *
 * @throws {Error} when no option matches, listing the valid keys.
 */
export function answerFromKey(question: Question, key: string): Answer {
  const wanted = key.trim().toLowerCase();
  if (question.type === 'multiple_choice') {
    const option = findQuestionOption(question, key);
    if (option === undefined) {
      throw new Error(
        `--answer "${key}" matches no option of the question "${question.text}" (stage ${question.stage}). Valid keys: ${question.options.map((candidate) => `${candidate.key} (${candidate.label})`).join(', ')}.`,
      );
    }
    return { value: option.key, selectedOption: option };
  }
  if (question.type === 'yes_no' || question.type === 'confirmation') {
    if (['y', 'yes', 'true'].includes(wanted)) return { value: 'yes' };
    if (['n', 'no', 'false'].includes(wanted)) return { value: 'no' };
    throw new Error(
      `--answer "${key}" does not answer the yes/no question "${question.text}" (stage ${question.stage}). Use yes or no.`,
    );
  }
  return { value: key, text: key };
}

/**
 * The `--auto-approve` answer, as `createAutoApproveInterviewer` of `@attractor/handlers` gives it: yes for yes/no
 * questions, the first option (docs/architecture.md "Human gates") for multiple choice, `auto-approved` for
 * free text.
 */
export function autoApproveAnswer(question: Question): Answer {
  if (question.type === 'yes_no' || question.type === 'confirmation') return { value: 'yes' };
  const first = question.options[0];
  if (question.type === 'multiple_choice' && first !== undefined)
    return { value: first.key, selectedOption: first };
  return { value: 'auto-approved', text: 'auto-approved' };
}
