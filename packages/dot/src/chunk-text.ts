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
 * They are found when the chunk is made, in its own text: a chunk holds whole statements, so its strings are
 * whole, and comments are already masked. (Listing them for the whole file up front, as the scanner once did,
 * was megabytes of arrays alive for the whole parse.) The AST builder reads the full text from the source
 * through the mapping. `parseDotWithoutChunks` matches the full text, and the tests compare the two.
 */
import { type DotScan, isDigit, isIdChar, isLiteralWord } from './scan-dot.js';

const QUOTE = 34;
const BACKSLASH = 92;

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
 * Builds the chunk `[start, end)` of `scan.masked` without the body of every non-empty quoted string and the tail
 * of every identifier after its first character, except keywords and `true`/`false`, which the grammar matches
 * literally. `[start, end)` must hold whole statements (a segment of the scan), or whole attribute items.
 * `skip` lists ranges left out whole (ascending; each starts where a token starts): the pieces of a long attribute
 * block matched on their own (split-attribute-blocks.ts).
 */
export function elidedChunk(
  scan: DotScan,
  start: number,
  end: number,
  skip: readonly (readonly [number, number])[] = [],
): ChunkText {
  const { masked } = scan;
  const pieces: string[] = [];
  const elidedAt: number[] = [];
  const removedUpTo: number[] = [];
  let copied = start;
  let removed = 0;
  const cut = (cutStart: number, cutEnd: number) => {
    pieces.push(masked.slice(copied, cutStart));
    copied = cutEnd;
    elidedAt.push(cutStart - start - removed);
    removed += cutEnd - cutStart;
    removedUpTo.push(removed);
  };
  let index = start;
  let skipped = 0;
  while (index < end) {
    if (skipped < skip.length && index === skip[skipped]![0]) {
      cut(index, skip[skipped]![1]);
      index = skip[skipped]![1];
      skipped++;
      continue;
    }
    const code = masked.charCodeAt(index);
    if (code === QUOTE) {
      const close = closingQuote(masked, index);
      if (close > index + 1) cut(index + 1, close);
      index = close + 1;
    } else if (isIdChar(code)) {
      let wordEnd = index + 1;
      while (wordEnd < end && isIdChar(masked.charCodeAt(wordEnd))) wordEnd++;
      if (wordEnd - index > 1 && !isDigit(code) && !isLiteralWord(masked, index, wordEnd))
        cut(index + 1, wordEnd);
      index = wordEnd;
    } else {
      index++;
    }
  }
  pieces.push(masked.slice(copied, end));
  return { text: pieces.join(''), base: start, elidedAt, removedUpTo };
}

/** The offset of the `"` that closes the string opened at `open` (the scanner has checked that there is one). */
export function closingQuote(text: string, open: number): number {
  let from = open + 1;
  for (;;) {
    const quote = text.indexOf('"', from);
    if (quote === -1) return text.length;
    let backslashes = 0;
    for (let before = quote - 1; before > open && text.charCodeAt(before) === BACKSLASH; before--)
      backslashes++;
    if (backslashes % 2 === 0) return quote;
    from = quote + 1;
  }
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
