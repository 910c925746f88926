import type { Answer, Interviewer, Question } from '@attractor/engine';

/** The answer of {@link createAutoApproveInterviewer} to a question (spec §6.4). Pure. */
export function autoApproveAnswer(question: Question): Answer {
  if (question.type === 'yes_no' || question.type === 'confirmation') return { value: 'yes' };
  const first = question.options[0];
  if (question.type === 'multiple_choice' && first !== undefined) {
    return { value: first.key, selectedOption: first };
  }
  return { value: 'auto-approved', text: 'auto-approved' };
}

/**
 * Creates the AutoApproveInterviewer of spec §6.4: YES for yes/no and confirmation questions, the first option
 * (the first outgoing edge in declaration order, docs/architecture.md "Human gates") for multiple choice, and
 * the text `auto-approved` for free text. For unattended runs (CLI `--auto-approve`, CI).
 *
 * @example
 * await runPipeline({ graph, registry, logsRoot, interviewer: createAutoApproveInterviewer() });
 */
export function createAutoApproveInterviewer(): Interviewer {
  return { ask: async (question) => autoApproveAnswer(question) };
}
