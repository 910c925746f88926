/**
 * Loop detection of coding-agent-loop-spec §2.10: the last N tool calls repeat a pattern of length 1, 2 or 3.
 */

/** How many recent tool calls are compared (coding-agent-loop-spec §2.2 `loop_detection_window`). */
export const LOOP_DETECTION_WINDOW = 10;

/** The warning added as a user message when a loop is detected (coding-agent-loop-spec §2.5 step 8). */
export function loopWarning(window: number): string {
  return `Loop detected: the last ${window} tool calls follow a repeating pattern. Try a different approach.`;
}

/**
 * Whether the last `window` signatures (tool name plus arguments, oldest first) consist of one pattern of length
 * 1, 2 or 3 repeated. False when there are fewer than `window` calls. Pure.
 */
export function detectToolLoop(signatures: readonly string[], window = LOOP_DETECTION_WINDOW): boolean {
  if (signatures.length < window) return false;
  const recent = signatures.slice(signatures.length - window);
  return [1, 2, 3].some(
    (length) =>
      window % length === 0 && recent.every((signature, index) => signature === recent[index % length]),
  );
}
