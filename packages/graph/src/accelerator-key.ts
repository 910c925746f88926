/**
 * The accelerator key of a human-gate option label (spec §4.6): `[Y] Yes` → `Y`, `Y) Yes` → `Y`,
 * `Y - Yes` → `Y`, otherwise the first character (`Yes` → `Y`). Empty label → empty string.
 * Shared by the `wait.human` handler and the human-gate lint rules so both agree.
 */
export function parseAcceleratorKey(label: string): string {
  const text = label.trim();
  const match = /^\[(\w)\]\s*/.exec(text) ?? /^(\w)\)\s+/.exec(text) ?? /^(\w)\s+-\s+/.exec(text);
  if (match) return match[1]!;
  return text.charAt(0);
}
