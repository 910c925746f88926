/**
 * The text Ohm matches for one chunk, with what the grammar does not need elided, and the mapping of
 * its offsets back to the source.
 *
 * - The body of every quoted string (`"…"` becomes `""`): prompts are most of a pipeline's bytes, and
 *   Ohm spends several expression evaluations per character on a string body.
 * - The tail of every identifier after its first character (`stage_12` becomes `s`), keywords and
 *   `true`/`false` excepted: an identifier is one token to the grammar whatever its length, but
 *   Ohm would evaluate a character class and build a CST node for each of its characters.
 *
 * The scanner has already found both (it had to, to respect strings and to cut chunks), so the AST
 * builder reads the full text from the source through the mapping. `parseDotWithoutChunks` matches
 * the full text, and the tests compare the two.
 */
import type { DotScan } from './scan-dot.js';

/** One chunk as matched by Ohm. */
export interface ChunkText {
  /** What Ohm matches. */
  readonly text: string;
  /** Source offset of `text[0]`. */
  readonly base: number;
  /** Ascending positions in `text` where something was elided (the character after the cut). */
  readonly elidedAt: readonly number[];
  /** `removedUpTo[i]`: characters elided at `elidedAt[0..i]`, in total. */
  readonly removedUpTo: readonly number[];
}

/** A chunk matched verbatim (nothing elided): `[start, end)` of `scan.masked`. */
export function verbatimChunk(scan: DotScan, start: number, end: number): ChunkText {
  return { text: scan.masked.slice(start, end), base: start, elidedAt: [], removedUpTo: [] };
}

/**
 * Builds the chunk `[start, end)` of `scan.masked` without the ranges of `scan.elisions`. `firstElision`
 * is the index (in pairs) of the first elision that may lie in the chunk; the index after the chunk's
 * last elision is returned with it, so consecutive chunks walk the list once.
 */
export function elidedChunk(
  scan: DotScan,
  start: number,
  end: number,
  firstElision: number,
): { chunk: ChunkText; nextElision: number } {
  const { masked, elisions } = scan;
  let pair = firstElision;
  while (pair < elisions.length && elisions[pair]! < start) pair += 2;
  const pieces: string[] = [];
  const elidedAt: number[] = [];
  const removedUpTo: number[] = [];
  let copied = start;
  let removed = 0;
  for (; pair < elisions.length && elisions[pair]! < end; pair += 2) {
    const cutStart = elisions[pair]!;
    const cutEnd = elisions[pair + 1]!;
    pieces.push(masked.slice(copied, cutStart));
    copied = cutEnd;
    elidedAt.push(cutStart - start - removed);
    removed += cutEnd - cutStart;
    removedUpTo.push(removed);
  }
  pieces.push(masked.slice(copied, end));
  return { chunk: { text: pieces.join(''), base: start, elidedAt, removedUpTo }, nextElision: pair };
}

/** The source offset of position `index` of `chunk.text`. */
export function toSourceOffset(chunk: ChunkText, index: number): number {
  const { elidedAt, removedUpTo } = chunk;
  if (elidedAt.length === 0 || index < elidedAt[0]!) return chunk.base + index;
  // The last elision at or before `index` (the character after a cut maps past what was cut).
  let low = 0;
  let high = elidedAt.length - 1;
  while (low < high) {
    const middle = (low + high + 1) >> 1;
    if (elidedAt[middle]! <= index) low = middle;
    else high = middle - 1;
  }
  return chunk.base + index + removedUpTo[low]!;
}
