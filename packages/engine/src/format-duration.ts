/**
 * Human-readable durations for failure reasons (`timeout after 30s`).
 */

/**
 * Formats milliseconds the way DOT durations are written (spec §2.4): `250ms`, `30s`, `1.5s`, `15m`, `2h`, `1d`.
 * Uses the largest unit that gives an exact integer, else seconds with up to three decimals.
 */
export function formatDuration(ms: number): string {
  const units: [string, number][] = [
    ['d', 86_400_000],
    ['h', 3_600_000],
    ['m', 60_000],
    ['s', 1000],
  ];
  for (const [unit, size] of units) if (ms >= size && ms % size === 0) return `${ms / size}${unit}`;
  if (ms < 1000) return `${ms}ms`;
  return `${Number((ms / 1000).toFixed(3))}s`;
}
