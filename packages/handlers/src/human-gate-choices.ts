/**
 * The choices of a human gate (spec §4.6): one per outgoing edge, with accelerator keys, and the matching of an
 * answer or a `human.default_choice` to a choice.
 */
import { type Answer, normalizeLabel, type Question, type QuestionOption } from '@attractor/engine';
import { type Graph, parseAcceleratorKey } from '@attractor/graph';

/** One option of a human gate: the edge's label (or target id), its accelerator key and its target. */
export interface HumanGateChoice {
  /** Accelerator key (spec §4.6 table): `[A] Approve` → `A`, `Yes` → `Y`. */
  readonly key: string;
  /** The edge label, or the target node id when the edge has none. */
  readonly label: string;
  /** The edge's target node id. */
  readonly to: string;
}

/** The choices of a node's outgoing edges, in edge declaration order (spec §4.6 step 1). */
export function humanGateChoices(graph: Graph, nodeId: string): HumanGateChoice[] {
  return graph.outgoing(nodeId).map((edge) => {
    const label = edge.label.trim() === '' ? edge.to : edge.label.trim();
    return { key: parseAcceleratorKey(label), label, to: edge.to };
  });
}

/**
 * An option as a person reads it, with its accelerator key once: `[K] label`, or the label alone when it already
 * starts with that key's accelerator prefix (`[Y] Yes`, `Y) Yes`, `Y - Yes`; spec §4.6).
 *
 * @example
 * keyedLabel({ key: 'Y', label: '[Y] Yes' }); // '[Y] Yes'
 * keyedLabel({ key: 'Y', label: 'Yes' }); // '[Y] Yes'
 */
export function keyedLabel(option: { readonly key: string; readonly label: string }): string {
  const label = option.label.trim();
  const hasPrefix = normalizeLabel(label) !== label.toLowerCase();
  if (hasPrefix && parseAcceleratorKey(label).toLowerCase() === option.key.trim().toLowerCase()) return label;
  return `[${option.key}] ${option.label}`;
}

/**
 * The choice a text names: its accelerator key, its label (case-insensitive, with or without the accelerator
 * prefix `[K] `, `K) ` or `K - `), or its target node id. Keys are tried first, then labels, then targets, each
 * in edge order. The text is trimmed; an empty text names nothing.
 */
export function findChoiceByText(
  choices: readonly HumanGateChoice[],
  text: string,
): HumanGateChoice | undefined {
  const index = matchOptionIndex(choices, (choice) => choice.to, text);
  return index === undefined ? undefined : choices[index];
}

/**
 * The option of a multiple-choice question that a typed answer names (the CLI's `--answer`, a console line),
 * with the same rules as {@link findChoiceByText}: key, then full label, then label without its accelerator
 * prefix, then target node id (from `question.metadata.targets` when the `wait.human` handler set it); all
 * trimmed and case-insensitive. Returns `undefined` when nothing matches or the text is empty (spec §4.6, §6).
 *
 * @example
 * findQuestionOption(question, 'discard'); // { key: 'D', label: '[D] Discard' }
 */
export function findQuestionOption(question: Question, text: string): QuestionOption | undefined {
  const targets = question.metadata?.targets;
  const targetOf = (_option: QuestionOption, index: number): string | undefined => {
    if (!Array.isArray(targets)) return undefined;
    const target = targets[index];
    return typeof target === 'string' ? target : undefined;
  };
  const index = matchOptionIndex(question.options, targetOf, text);
  return index === undefined ? undefined : question.options[index];
}

function matchOptionIndex<T extends { readonly key: string; readonly label: string }>(
  options: readonly T[],
  targetOf: (option: T, index: number) => string | undefined,
  text: string,
): number | undefined {
  const wanted = text.trim().toLowerCase();
  if (wanted === '') return undefined;
  const found = [
    options.findIndex((option) => option.key.trim().toLowerCase() === wanted),
    options.findIndex(
      (option) => option.label.trim().toLowerCase() === wanted || normalizeLabel(option.label) === wanted,
    ),
    options.findIndex((option, index) => targetOf(option, index)?.trim().toLowerCase() === wanted),
  ].find((index) => index >= 0);
  return found;
}

/** The choice an interviewer's answer selects (spec §4.6 step 5): by `selectedOption`, then by `value`. */
export function findChoiceForAnswer(
  choices: readonly HumanGateChoice[],
  answer: Answer,
): HumanGateChoice | undefined {
  const option = answer.selectedOption;
  if (option !== undefined) {
    const exact = choices.find((choice) => choice.key === option.key && choice.label === option.label);
    if (exact !== undefined) return exact;
  }
  return (
    findChoiceByText(choices, answer.value) ??
    (option === undefined ? undefined : findChoiceByText(choices, option.key))
  );
}
