/**
 * Turns what a person typed (`attractor answer <run> <key>`, an API call) into the {@link Answer} of a persisted
 * question, or says which options there are. Pure.
 */
import { type Answer, normalizeLabel, type Question } from '@attractor/engine';

/** The answer, or why the text answers nothing. */
export type AnswerMatch = { readonly answer: Answer } | { readonly error: string };

/**
 * Matches `text` against `question`: a `multiple_choice` option by accelerator key, then by label (with or without its
 * accelerator prefix `[K] `, `K) ` or `K - `), then by target node id (`metadata.targets`), all case-insensitive, as a
 * local run's `--answer` (spec §4.6, §6); `yes`/`no` (or `y`/`n`) for yes/no and confirmation questions; any text for
 * `freeform`. `skipped` declines any question (the gate then fails).
 */
export function matchAnswer(question: Question, text: string): AnswerMatch {
  const trimmed = text.trim();
  if (trimmed === 'skipped') return { answer: { value: 'skipped' } };
  switch (question.type) {
    case 'freeform':
      return trimmed === ''
        ? { error: 'the answer is empty; type the text to answer with' }
        : { answer: { value: trimmed, text: trimmed } };
    case 'yes_no':
    case 'confirmation': {
      const lower = trimmed.toLowerCase();
      if (lower === 'yes' || lower === 'y') return { answer: { value: 'yes' } };
      if (lower === 'no' || lower === 'n') return { answer: { value: 'no' } };
      return { error: `answer yes or no, not "${trimmed}"` };
    }
    case 'multiple_choice': {
      if (trimmed === '') return { error: "the answer is empty; give an option's key, label or target node" };
      const wanted = trimmed.toLowerCase();
      const targets = Array.isArray(question.metadata?.targets) ? question.metadata.targets : [];
      const index = [
        question.options.findIndex((option) => option.key.trim().toLowerCase() === wanted),
        question.options.findIndex(
          (option) => option.label.trim().toLowerCase() === wanted || normalizeLabel(option.label) === wanted,
        ),
        targets.findIndex(
          (target, position) =>
            position < question.options.length &&
            typeof target === 'string' &&
            target.toLowerCase() === wanted,
        ),
      ].find((found) => found >= 0);
      const option = index === undefined ? undefined : question.options[index];
      if (option === undefined) {
        return {
          error: `"${trimmed}" is none of the options: ${question.options.map((choice) => `${choice.key} (${choice.label})`).join(', ')}`,
        };
      }
      return { answer: { value: option.key, selectedOption: option } };
    }
  }
}
