/**
 * Text truncation for context values: the context holds small values (docs/architecture.md "Context values"),
 * the stage directory holds the full text.
 */

/** Keeps the first `maxChars` characters and appends a marker saying how many were cut. */
export function truncateHead(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  return `${text.slice(0, maxChars)}\n[... truncated ${text.length - maxChars} of ${text.length} characters]`;
}

/** Keeps the last `maxChars` characters, prefixed with a marker saying how many were cut. */
export function truncateTail(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  return `[... ${text.length - maxChars} earlier characters truncated]\n${text.slice(-maxChars)}`;
}
