import { distance } from 'fastest-levenshtein';

/**
 * The candidate closest to `name` by edit distance, when it is close enough to be a likely typo:
 * at most 2 edits (1 for a 3-character name; names of 1-2 characters get no suggestion).
 * Case differences are not counted. Ties keep the first candidate. A candidate equal to `name` is skipped.
 * The lint rules' "Did you mean ...?" (node ids, shapes, handler types, attribute names) and the simulation
 * script's key check use it.
 *
 * @param name - what the user wrote.
 * @param candidates - the names that exist.
 * @returns the likely intended candidate, or `undefined` when none is close enough.
 */
export function didYouMean(name: string, candidates: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  const limit = name.length <= 2 ? 0 : name.length === 3 ? 1 : 2;
  for (const candidate of candidates) {
    if (candidate === name) continue;
    const edits = distance(name.toLowerCase(), candidate.toLowerCase());
    if (edits < bestDistance) {
      best = candidate;
      bestDistance = edits;
    }
  }
  return bestDistance <= limit ? best : undefined;
}
