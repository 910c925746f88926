/**
 * Cuts a long attribute block (`a -> b [k0=1 k1=2 … k99999=…]`) into pieces Ohm matches one at a time (issue 34
 * §14). The scanner cuts the body into runs of whole statements, but one statement is matched whole, and Ohm keeps a
 * memo entry and a CST node per position of what it matches: a block of 100,000 attributes cost 15 s and 1.6 GB.
 * The items of a long block are matched in pieces of about {@link SplitAttributeBlocksOptions.pieceLength}
 * characters with the grammar's `AttrItems` rule instead, and only the last piece stays in the statement, so each
 * match holds a few kilobytes whatever the block's length.
 *
 * A cut goes only before an item that follows a run of items this module has checked to be well formed (the
 * grammar's `AttrItem`: `key = value` with `+`-joined strings and a `,` or `;`), so the pieces parse as the block
 * would. At the first thing it does not recognise it stops cutting: the rest of the block, and with it any syntax
 * error, is matched inside its statement as before, and reported the same way.
 */
import { closingQuote } from './chunk-text.js';

/** Options of {@link splitAttributeBlocks}. */
export interface SplitAttributeBlocksOptions {
  /** A block whose inside is longer than this many characters is cut. Default: 8,192. */
  readonly minBlockLength?: number;
  /** The length a piece grows to before the next cut, in characters. Default: 128. */
  readonly pieceLength?: number;
}

/** A long attribute block and how it is cut. Offsets are into the source (and the scan's masked text). */
export interface AttributeBlockSplit {
  /** The offset of the block's `[`. */
  readonly open: number;
  /** `[start, end)` of each piece matched on its own, in order, each a run of whole items. */
  readonly pieces: readonly (readonly [number, number])[];
  /** Where the rest of the block begins: `[pieces[0][0], rest)` is left out of the statement's match. */
  readonly rest: number;
}

const DEFAULT_MIN_BLOCK_LENGTH = 8192;
const DEFAULT_PIECE_LENGTH = 128;

const QUOTE = 34;
const PLUS = 43;
const COMMA = 44;
const EQUALS = 61;
const SEMICOLON = 59;
const OPEN_BRACKET = 91;
const CLOSE_BRACKET = 93;

/** `key` of the grammar, unquoted: `dottedName = identifier ("." identifier)*`. */
const KEY = /^[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*$/;
/** The unquoted alternatives of `Value`: float, duration, integer, boolean and bare value. */
const VALUE = /^(?:-?[0-9]*\.[0-9]+|-?[0-9]+(?:ms|s|m|h|d)?|[A-Za-z_][A-Za-z0-9_.:-]*)$/;

/** A character of an unquoted key or value word (`bareChar`). */
function isWordChar(code: number): boolean {
  return (
    (code >= 97 && code <= 122) ||
    (code >= 65 && code <= 90) ||
    (code >= 48 && code <= 57) ||
    code === 95 ||
    code === 46 ||
    code === 58 ||
    code === 45
  );
}

/**
 * The long attribute blocks of the statements `[start, end)` of `masked` (the scanner's text: comments blanked,
 * strings whole) and how to cut each; none when the text is short.
 */
export function splitAttributeBlocks(
  masked: string,
  start: number,
  end: number,
  options: SplitAttributeBlocksOptions = {},
): AttributeBlockSplit[] {
  const minBlockLength = options.minBlockLength ?? DEFAULT_MIN_BLOCK_LENGTH;
  const pieceLength = options.pieceLength ?? DEFAULT_PIECE_LENGTH;
  const splits: AttributeBlockSplit[] = [];
  if (end - start <= minBlockLength) return splits;
  let open = -1;
  for (let index = start; index < end; index++) {
    const code = masked.charCodeAt(index);
    if (code === QUOTE) index = closingQuote(masked, index);
    else if (code === OPEN_BRACKET) open = index;
    else if (code === CLOSE_BRACKET && open !== -1) {
      if (index - open - 1 > minBlockLength) {
        const split = cutItems(masked, open, index, pieceLength);
        if (split !== undefined) splits.push(split);
      }
      open = -1;
    }
  }
  return splits;
}

/** Cuts the inside of the block `[open, close]` before well-formed items, every `pieceLength` characters or so. */
function cutItems(
  masked: string,
  open: number,
  close: number,
  pieceLength: number,
): AttributeBlockSplit | undefined {
  const first = open + 1;
  const pieces: [number, number][] = [];
  let pieceStart = first;
  // What may come next: a key (at the start, or after a separator), `=`, a value, a string after `+`, or whatever
  // may follow a value (a separator, a `+` after a string, the next key).
  let state: 'key' | 'equals' | 'value' | 'joined' | 'afterValue' = 'key';
  let stringValue = false;
  let index = first;
  while (index < close) {
    const code = masked.charCodeAt(index);
    if (code <= 32) {
      index++;
      continue;
    }
    if (state === 'afterValue' && (code === COMMA || code === SEMICOLON)) {
      state = 'key';
      index++;
      continue;
    }
    if (state === 'afterValue' && code === PLUS && stringValue) {
      state = 'joined';
      index++;
      continue;
    }
    if (state === 'equals') {
      if (code !== EQUALS) break;
      state = 'value';
      index++;
      continue;
    }
    const token = readToken(masked, index, close);
    if (token === undefined) break;
    if (state === 'key' || state === 'afterValue') {
      // An item starts here: a cut may go before it.
      if (token.quoted ? false : !KEY.test(masked.slice(index, token.end))) break;
      if (index - pieceStart >= pieceLength) {
        pieces.push([pieceStart, index]);
        pieceStart = index;
      }
      state = 'equals';
    } else if (state === 'value') {
      if (!token.quoted && !VALUE.test(masked.slice(index, token.end))) break;
      stringValue = token.quoted;
      state = 'afterValue';
    } else {
      // joined: only a string may follow `+`.
      if (!token.quoted) break;
      state = 'afterValue';
    }
    index = token.end;
  }
  return pieces.length === 0 ? undefined : { open, pieces, rest: pieceStart };
}

/** The quoted string or the word at `index`, up to `limit`; undefined for anything else. */
function readToken(
  masked: string,
  index: number,
  limit: number,
): { readonly end: number; readonly quoted: boolean } | undefined {
  if (masked.charCodeAt(index) === QUOTE) {
    const close = closingQuote(masked, index);
    return close >= limit ? undefined : { end: close + 1, quoted: true };
  }
  let end = index;
  while (end < limit && isWordChar(masked.charCodeAt(end))) end++;
  return end === index ? undefined : { end, quoted: false };
}
