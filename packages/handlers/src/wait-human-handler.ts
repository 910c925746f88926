/**
 * The `wait.human` handler (spec §4.6, docs/architecture.md "Human gates"): asks the interviewer to choose
 * one of the node's outgoing edges, or, for a node with `human.input="text"`, asks for free text.
 */
import type { Answer, HandlerRuntime, Interviewer, Outcome, Question } from '@attractor/engine';
import { type DeclaredHandler, defineHandler } from '@attractor/engine';
import { type GraphNode, nodeAttribute, SPEC_HANDLER_DECLARATIONS } from '@attractor/graph';
import {
  findChoiceByText,
  findChoiceForAnswer,
  type HumanGateChoice,
  humanGateChoices,
  keyedLabel,
} from './human-gate-choices.js';

/** Options of {@link createWaitHumanHandler}. */
export interface WaitHumanHandlerOptions {
  /**
   * Asks the questions instead of `runtime.interviewer`. Note that `runtime.interviewer` is the engine's wrapper
   * that emits `interview.*` events and applies timeouts; an override gets neither. Default: `runtime.interviewer`.
   */
  readonly interviewer?: Interviewer;
}

/** The value of `human.input` that turns a gate into a free-text (FREEFORM) question. */
export const HUMAN_TEXT_INPUT = 'text';

/**
 * Whether a human gate asks for free text: its `human.input` attribute is `text`. Every other gate is a
 * MULTIPLE_CHOICE question over its outgoing edges.
 */
export function asksForText(node: GraphNode): boolean {
  return nodeAttribute(node, 'human.input') === HUMAN_TEXT_INPUT;
}

/**
 * Creates the `wait.human` handler (spec §4.6).
 *
 * **Choice gates** (the default): one option per outgoing edge (label, or target id when unlabelled) with its
 * accelerator key (`[K] Label`, `K) Label`, `K - Label`, else the first character), asked as a MULTIPLE_CHOICE
 * question with `timeoutMs` = the node's `timeout` (the interview timeout; the engine applies it). The answer
 * may name the option by key, label or target id. The outcome is SUCCESS with `preferredLabel` = the label,
 * `suggestedNextIds` = [target], and context `human.gate.selected` (key) and `human.gate.label`.
 * On timeout, `human.default_choice` (target id, label or key) is taken; without one the outcome is RETRY.
 * A SKIPPED answer is FAIL. An answer that names no option is FAIL (never silently the first option).
 *
 * **Text gates** (`human.input="text"`): a FREEFORM question; the text goes to `human.gate.text` and, when the
 * node sets `human.context_key`, to that key too. Routing then follows the outgoing edges as usual. On timeout,
 * `human.default_choice` is used as the text, else RETRY.
 *
 * @example
 * registry.register('wait.human', createWaitHumanHandler());
 */
export function createWaitHumanHandler(options: WaitHumanHandlerOptions = {}): DeclaredHandler {
  return defineHandler({
    type: 'wait.human',
    ...SPEC_HANDLER_DECLARATIONS['wait.human'],
    async execute({ node, graph, runtime }) {
      const interviewer = options.interviewer ?? runtime.interviewer;
      const defaultChoice = nodeAttribute(node, 'human.default_choice')?.trim() ?? '';
      if (asksForText(node)) return askForText(node, runtime, interviewer, defaultChoice);
      const choices = humanGateChoices(graph, node.id);
      if (choices.length === 0) {
        return { status: 'fail', failureReason: 'No outgoing edges for human gate', retryable: false };
      }
      const fallback = defaultChoice === '' ? undefined : findChoiceByText(choices, defaultChoice);
      const question: Question = {
        id: `${node.id}:${runtime.visit}:${runtime.attempt}`,
        text: node.label.trim() === '' ? 'Select an option:' : node.label,
        type: 'multiple_choice',
        options: choices.map((choice) => ({ key: choice.key, label: choice.label })),
        ...(fallback === undefined
          ? {}
          : {
              default: { value: fallback.key, selectedOption: { key: fallback.key, label: fallback.label } },
            }),
        ...(node.timeoutMs === undefined ? {} : { timeoutMs: node.timeoutMs }),
        stage: node.id,
        metadata: { targets: choices.map((choice) => choice.to) },
      };
      const answer = await interviewer.ask(question, { abortSignal: runtime.abortSignal });
      if (answer.value === 'timeout') {
        if (fallback !== undefined)
          return selected(fallback, `timed out; took human.default_choice "${defaultChoice}"`);
        return {
          status: 'retry',
          failureReason:
            defaultChoice === ''
              ? 'human gate timeout, no default'
              : `human gate timeout; human.default_choice "${defaultChoice}" matches no option (${describe(choices)})`,
        };
      }
      if (answer.value === 'skipped') {
        return { status: 'fail', failureReason: 'human skipped interaction', retryable: false };
      }
      const choice = findChoiceForAnswer(choices, answer);
      if (choice === undefined) {
        return {
          status: 'fail',
          failureReason: `answer "${answer.value}" matches no option of human gate "${node.id}" (${describe(choices)}); answer with a key, a label or a target node id`,
          retryable: false,
        };
      }
      return selected(choice);
    },
  });
}

function selected(choice: HumanGateChoice, note?: string): Outcome {
  return {
    status: 'success',
    preferredLabel: choice.label,
    suggestedNextIds: [choice.to],
    contextUpdates: { 'human.gate.selected': choice.key, 'human.gate.label': choice.label },
    notes: `Selected ${keyedLabel(choice)} -> ${choice.to}${note === undefined ? '' : ` (${note})`}`,
  };
}

async function askForText(
  node: GraphNode,
  runtime: HandlerRuntime,
  interviewer: Interviewer,
  defaultText: string,
): Promise<Outcome> {
  const question: Question = {
    id: `${node.id}:${runtime.visit}:${runtime.attempt}`,
    text: node.label.trim() === '' ? 'Enter your answer:' : node.label,
    type: 'freeform',
    options: [],
    ...(defaultText === '' ? {} : { default: { value: defaultText, text: defaultText } }),
    ...(node.timeoutMs === undefined ? {} : { timeoutMs: node.timeoutMs }),
    stage: node.id,
  };
  const answer: Answer = await interviewer.ask(question, { abortSignal: runtime.abortSignal });
  if (answer.value === 'skipped') {
    return { status: 'fail', failureReason: 'human skipped interaction', retryable: false };
  }
  let text = answer.text ?? answer.value;
  if (answer.value === 'timeout' && answer.text === undefined) {
    if (defaultText === '') return { status: 'retry', failureReason: 'human gate timeout, no default' };
    text = defaultText;
  }
  const key = nodeAttribute(node, 'human.context_key')?.trim() ?? '';
  return {
    status: 'success',
    contextUpdates: { 'human.gate.text': text, ...(key === '' ? {} : { [key]: text }) },
    notes: `Received ${text.length} characters of text`,
  };
}

function describe(choices: readonly HumanGateChoice[]): string {
  return choices.map((choice) => `${keyedLabel(choice)} -> ${choice.to}`).join(', ');
}
