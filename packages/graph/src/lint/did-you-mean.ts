import { distance } from 'fastest-levenshtein';

/**
 * The candidate closest to `name` by edit distance, when it is close enough to be a likely typo:
 * at most 2 edits, and fewer than half the name's length. Ties keep the first candidate.
 */
export function didYouMean(name: string, candidates: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  const limit = Math.min(2, Math.floor((name.length - 1) / 2));
  for (const candidate of candidates) {
    if (candidate === name) continue;
    const edits = distance(name.toLowerCase(), candidate.toLowerCase());
    if (edits < bestDistance) {
      best = candidate;
      bestDistance = edits;
    }
  }
  return bestDistance <= Math.max(limit, 1) ? best : undefined;
}
