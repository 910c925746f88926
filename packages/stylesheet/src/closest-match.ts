function editDistance(left: string, right: string): number {
  let previous = Array.from({ length: right.length + 1 }, (_, index) => index);
  for (let row = 1; row <= left.length; row += 1) {
    const current = [row];
    for (let column = 1; column <= right.length; column += 1) {
      const substitution = previous[column - 1]! + (left[row - 1] === right[column - 1] ? 0 : 1);
      current.push(Math.min(previous[column]! + 1, current[column - 1]! + 1, substitution));
    }
    previous = current;
  }
  return previous[right.length]!;
}

/**
 * The candidate closest to `word` by Levenshtein distance (case-insensitive), or `undefined` when
 * none is within `max(2, floor(length / 3))` edits. Each candidate may list `aliases` that count as
 * the candidate (`model` for `llm_model`), so names from other stylesheet dialects find their match.
 * Ties go to the earlier candidate. Internal.
 */
export function closestMatch(
  word: string,
  candidates: ReadonlyArray<{ readonly name: string; readonly aliases?: readonly string[] }>,
): string | undefined {
  const needle = word.toLowerCase();
  let best: { name: string; distance: number } | undefined;
  for (const candidate of candidates) {
    for (const form of [candidate.name, ...(candidate.aliases ?? [])]) {
      const distance = editDistance(needle, form.toLowerCase());
      const limit = Math.max(2, Math.floor(form.length / 3));
      if (distance <= limit && (best === undefined || distance < best.distance)) {
        best = { name: candidate.name, distance };
      }
    }
  }
  return best?.name;
}
