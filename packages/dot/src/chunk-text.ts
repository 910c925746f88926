/**
 * The text Ohm matches for one chunk, with the body of every quoted string elided (`"…"` becomes
 * `""`), and the mapping of its offsets back to the source.
 *
 * Prompts are most of a pipeline's bytes, and Ohm spends several expression evaluations per character
 * on a string body. The scanner has already found where each string ends (it had to, to respect them),
 * so the grammar only needs to see the quotes; the AST reads the string text from the source through
 * the mapping. `parseDotWithoutChunks` matches the full text, and the tests compare the two.
 */
import type { DotScan } from './scan-dot.js';

/** One chunk as matched by Ohm. */
export interface ChunkText {
  /** What Ohm matches. */
  readonly text: string;
  /** Source offset of `text[0]`. */
  readonly base: number;
  /** Ascending positions in `text` of each elided string's closing quote. */
  readonly elidedAt: readonly number[];
  /** `removedUpTo[i]`: characters elided at `elidedAt[0..i]`, in total. */
  readonly removedUpTo: readonly number[];
}

/** A chunk matched verbatim (no string elided): `[start, end)` of `scan.masked`. */
export function verbatimChunk(scan: DotScan, start: number, end: number): ChunkText {
  return { text: scan.masked.slice(start, end), base: start, elidedAt: [], removedUpTo: [] };
}

/**
 * Builds the chunk `[start, end)` of `scan.masked` with string bodies elided. `firstString` is the
 * index (in pairs) of the first string of `scan.strings` that may lie in the chunk; the index after
 * the chunk's last string is returned with it, so consecutive chunks walk the list once.
 */
export function elidedChunk(
  scan: DotScan,
  start: number,
  end: number,
  firstString: number,
): { chunk: ChunkText; nextString: number } {
  const { masked, strings } = scan;
  let pair = firstString;
  while (pair < strings.length && strings[pair]! < start) pair += 2;
  const pieces: string[] = [];
  const elidedAt: number[] = [];
  const removedUpTo: number[] = [];
  let copied = start;
  let removed = 0;
  for (; pair < strings.length && strings[pair]! < end; pair += 2) {
    const stringStart = strings[pair]!;
    const stringEnd = strings[pair + 1]!;
    const bodyLength = stringEnd - stringStart - 2;
    if (bodyLength === 0) continue;
    pieces.push(masked.slice(copied, stringStart + 1));
    copied = stringEnd - 1;
    elidedAt.push(stringEnd - 1 - start - removed - bodyLength);
    removed += bodyLength;
    removedUpTo.push(removed);
  }
  pieces.push(masked.slice(copied, end));
  return { chunk: { text: pieces.join(''), base: start, elidedAt, removedUpTo }, nextString: pair };
}

/** The source offset of position `index` of `chunk.text`. */
export function toSourceOffset(chunk: ChunkText, index: number): number {
  const { elidedAt, removedUpTo } = chunk;
  if (elidedAt.length === 0 || index < elidedAt[0]!) return chunk.base + index;
  // The last elision at or before `index` (a closing quote maps past the body it closes).
  let low = 0;
  let high = elidedAt.length - 1;
  while (low < high) {
    const middle = (low + high + 1) >> 1;
    if (elidedAt[middle]! <= index) low = middle;
    else high = middle - 1;
  }
  return chunk.base + index + removedUpTo[low]!;
}
