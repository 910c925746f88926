/**
 * The choices of a human gate (spec §4.6): one per outgoing edge, with accelerator keys, and the matching of an
 * answer or a `human.default_choice` to a choice.
 */
import type { Answer } from '@attractor/engine';
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
 * The choice a text names: its accelerator key, its label (case-insensitive, with or without the accelerator
 * prefix), or its target node id. Keys are tried first, then labels, then targets, each in edge order.
 */
export function findChoiceByText(
  choices: readonly HumanGateChoice[],
  text: string,
): HumanGateChoice | undefined {
  const wanted = text.trim().toLowerCase();
  if (wanted === '') return undefined;
  return (
    choices.find((choice) => choice.key.toLowerCase() === wanted) ??
    choices.find(
      (choice) => choice.label.toLowerCase() === wanted || stripAccelerator(choice.label) === wanted,
    ) ??
    choices.find((choice) => choice.to.toLowerCase() === wanted)
  );
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

function stripAccelerator(label: string): string {
  return label
    .trim()
    .replace(/^(?:\[\w\]\s*|\w\)\s+|\w\s+-\s+)/, '')
    .trim()
    .toLowerCase();
}
