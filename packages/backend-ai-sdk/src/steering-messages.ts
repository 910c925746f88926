/**
 * Messages added to a running agent loop between steps: steering from a manager loop (coding-agent-loop-spec
 * §2.6) and loop-detection warnings (§2.10), both as user messages. The AI SDK builds each step's messages from
 * the initial messages plus the responses so far, so the additions are kept with their positions and spliced in
 * again for every step and for the stored history.
 */
import type { ModelMessage } from 'ai';

/** A user message added after `position` response messages. */
export interface InjectedMessage {
  /** How many response messages preceded it when it was added. */
  readonly position: number;
  readonly message: ModelMessage;
}

/**
 * `messages` (initial messages, then response messages) with the injected messages spliced in at their
 * positions, in the order they were added. Pure.
 */
export function withInjectedMessages(
  messages: readonly ModelMessage[],
  initialCount: number,
  injected: readonly InjectedMessage[],
): ModelMessage[] {
  const result = messages.slice(0, initialCount);
  const responses = messages.slice(initialCount);
  for (let index = 0; index <= responses.length; index++) {
    for (const item of injected) if (item.position === index) result.push(item.message);
    const response = responses[index];
    if (response !== undefined) result.push(response);
  }
  return result;
}
