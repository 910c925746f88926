/**
 * The small scanner in front of the Ohm grammar (issue 2, "Speed and memory"): one linear pass that
 * respects strings, comments and brackets. It
 *
 * - masks comments, `#` preprocessor lines and a byte-order mark with spaces (newlines kept, so every
 *   offset stays valid), because `#` is only a preprocessor line at the start of a line outside a
 *   string (docs/architecture.md "Dialect") — something a PEG cannot see;
 * - finds the header (`digraph name {`), the body and the closing `}`;
 * - cuts the body into chunks of whole statements (also inside subgraphs that stand alone as
 *   statements), so Ohm matches (and memoizes) one small chunk at a time instead of the whole file;
 * - reports what it can pinpoint better than a grammar: a string, comment, `[` or `{` that is never
 *   closed (at the place it was opened), an HTML label, and text after the graph (a second graph).
 */
import { positionAt } from './line-index.js';
import { describeOffset, type ParseContext, syntaxError } from './parse-context.js';

/** The result of {@link scanDot}. Offsets are 0-based into the source (and `masked`). */
export interface DotScan {
  /** The source with comments, `#` lines and a BOM replaced by spaces; same length as the source. */
  readonly masked: string;
  /** Offset of the first character of the header (`digraph`, or whatever stands there). */
  readonly headerStart: number;
  /** Offset just after the graph's `{`. */
  readonly bodyStart: number;
  /** Offset of the graph's closing `}`. */
  readonly bodyEnd: number;
  /**
   * The body as segments, flattened in triples `[kind, start, end]`: {@link SEGMENT_STATEMENTS} (a run
   * of whole statements), {@link SEGMENT_SUBGRAPH_OPEN} (`subgraph name {` or `{` of a subgraph that
   * stands alone as a statement: its body is cut into segments too) and {@link SEGMENT_SUBGRAPH_CLOSE}
   * (its `}`).
   */
  readonly segments: readonly number[];
  /**
   * The comments and `#` preprocessor lines, flattened in pairs `[start, end)` in source order (a line comment and a
   * `#` line end before the line break). A formatter puts them back where they were (`formatDot`).
   */
  readonly comments: readonly number[];
}

/** Segment kind of {@link DotScan.segments}: a run of whole statements, matched with `Statements`. */
export const SEGMENT_STATEMENTS = 0;
/** Segment kind: `subgraph name {` (or a lone `{`) whose body follows as segments; matched with `SubgraphOpen`. */
export const SEGMENT_SUBGRAPH_OPEN = 1;
/** Segment kind: the `}` that closes the innermost open subgraph segment. */
export const SEGMENT_SUBGRAPH_CLOSE = 2;

/** Options of {@link scanDot}. */
export interface ScanDotOptions {
  /**
   * A chunk grows to at least this many characters of source before the next cut: each Ohm `match`
   * call has a fixed cost, and a chunk of a few statements stays cheap to memoize. Past it, the chunk ends after a
   * statement chosen by its text (about one in four), and at the latest at four times this length. Default: 1024.
   */
  readonly minChunkLength?: number;
}

const NEWLINE = 10;
const CARRIAGE_RETURN = 13;
const SPACE = 32;
const QUOTE = 34;
const HASH = 35;
const STAR = 42;
const MINUS = 45;
const SLASH = 47;
const SEMICOLON = 59;
const LESS_THAN = 60;
const EQUALS = 61;
const GREATER_THAN = 62;
const OPEN_BRACKET = 91;
const BACKSLASH = 92;
const CLOSE_BRACKET = 93;
const OPEN_BRACE = 123;
const CLOSE_BRACE = 125;
const BYTE_ORDER_MARK = 0xfeff;

/**
 * Whether a chunk may end after the statement `[start, end)`: true for about one statement in four, chosen by a hash
 * of the statement's text (FNV-1a, its bits mixed), so that the same statement ends a chunk wherever it stands in the file.
 */
function endsChunk(source: string, start: number, end: number): boolean {
  let hash = 0x811c9dc5;
  for (let index = start; index < end; index++) hash = Math.imul(hash ^ source.charCodeAt(index), 0x01000193);
  // FNV's low bits depend only on the last characters (every statement ends the same way): mix before taking them.
  hash ^= hash >>> 16;
  hash = Math.imul(hash, 0x85ebca6b);
  hash ^= hash >>> 13;
  return (hash & 3) === 0;
}

/** `A-Z a-z 0-9 _`. */
export function isIdChar(code: number): boolean {
  return (
    (code >= 97 && code <= 122) || (code >= 65 && code <= 90) || (code >= 48 && code <= 57) || code === 95
  );
}

/** `0-9`. */
export function isDigit(code: number): boolean {
  return code >= 48 && code <= 57;
}

/** Words the grammar matches letter by letter: the DOT keywords (any case) and `true`/`false`. */
const LITERAL_WORDS = new Set(['strict', 'digraph', 'graph', 'subgraph', 'node', 'edge', 'true', 'false']);

/** Whether `source[start, end)` is a word the grammar matches literally (a keyword, `true`, `false`). */
export function isLiteralWord(source: string, start: number, end: number): boolean {
  const length = end - start;
  return length >= 4 && length <= 8 && LITERAL_WORDS.has(source.slice(start, end).toLowerCase());
}

/** A line inside a string that looks like the start of a DOT statement: `name [` or `name ->`. */
const STATEMENT_LINE = /\n[ \t]*[A-Za-z_][A-Za-z0-9_]*[ \t]*(?:\[|->)/;
const SECOND_GRAPH = /(?:strict\s+)?(?:di)?graph\b/iy;
const GRAPH_KEYWORD = /(?:strict|digraph|graph)\b/iy;

/**
 * Scans `context.source` (see the file comment).
 *
 * @throws {DotSyntaxError} for an unclosed string, block comment, `[` or `{`; an unmatched `]` or `}`;
 *   an HTML label; text after the graph; a file without `{`.
 */
export function scanDot(context: ParseContext, options: ScanDotOptions = {}): DotScan {
  const minChunkLength = options.minChunkLength ?? 1024;
  const { source } = context;
  const length = source.length;
  const masks: number[] = [];
  const comments: number[] = [];
  const strings: number[] = [];
  const segments: number[] = [];
  const stack: number[] = [];
  // Stack depths whose brace holds statements cut into segments: the graph's, and those of subgraphs
  // that stand alone as statements. A subgraph inside an edge (rejected later) is matched whole.
  const statementLevels: number[] = [];

  let phase: 'header' | 'body' | 'trailer' = 'header';
  let headerStart = -1;
  let bodyStart = -1;
  let bodyEnd = -1;
  let atLineStart = true;
  let lastSignificant = 0;
  let newlineSinceSignificant = false;
  let lastWordIsSubgraph = false;
  // The chunk being collected, and the statement being read (since the last place a cut could go).
  let chunkStart = 0;
  let chunkTokens = 0;
  let statementTokens = 0;
  let statementFirstToken = 0;
  let statementFirstIsSubgraph = false;
  let afterSubgraphClose = false;

  let index = 0;
  while (index < length) {
    const code = source.charCodeAt(index);
    if (code === NEWLINE) {
      atLineStart = true;
      newlineSinceSignificant = true;
      index++;
      continue;
    }
    if (code <= SPACE) {
      index++;
      continue;
    }
    if (code === BYTE_ORDER_MARK) {
      masks.push(index, index + 1);
      index++;
      continue;
    }
    if (atLineStart && code === HASH) {
      const end = lineEnd(source, index);
      masks.push(index, end);
      comments.push(index, end);
      index = end;
      continue;
    }
    atLineStart = false;
    if (code === SLASH) {
      const next = source.charCodeAt(index + 1);
      if (next === SLASH) {
        const end = lineEnd(source, index);
        masks.push(index, end);
        comments.push(index, end);
        index = end;
        continue;
      }
      if (next === STAR) {
        const close = source.indexOf('*/', index + 2);
        if (close === -1) {
          throw syntaxError(
            context,
            index,
            index + 2,
            'This block comment is never closed',
            'Close it with "*/", or start a line comment with "//" instead.',
          );
        }
        const newline = source.indexOf('\n', index);
        if (newline !== -1 && newline < close) newlineSinceSignificant = true;
        masks.push(index, close + 2);
        comments.push(index, close + 2);
        index = close + 2;
        continue;
      }
    }

    // A significant character.
    if (phase === 'trailer') {
      SECOND_GRAPH.lastIndex = index;
      if (SECOND_GRAPH.test(source)) {
        throw syntaxError(
          context,
          index,
          SECOND_GRAPH.lastIndex,
          'A second graph starts here; a file may hold only one digraph',
          'Move this graph to a file of its own: Attractor reads one pipeline per file (spec §2.3).',
        );
      }
      throw syntaxError(
        context,
        index,
        index + 1,
        `Unexpected text after the end of the graph (its closing "}" is at ${describeOffset(context, bodyEnd)})`,
        'Delete it, or move it inside the graph\'s braces. A "}" too many earlier can also end the graph early.',
      );
    }
    if (phase === 'header') {
      if (headerStart === -1) headerStart = index;
      if (code === QUOTE) {
        index = skipString(context, index, strings);
        continue;
      }
      if (code === OPEN_BRACE) {
        phase = 'body';
        stack.push(index);
        statementLevels.push(stack.length);
        bodyStart = index + 1;
        chunkStart = bodyStart;
        lastSignificant = code;
        newlineSinceSignificant = false;
      }
      index++;
      continue;
    }

    // A ";" right after a subgraph's "}" ends that statement.
    if (afterSubgraphClose) {
      afterSubgraphClose = false;
      if (code === SEMICOLON) {
        chunkStart = index + 1;
        index++;
        continue;
      }
    }
    const atStatementLevel = stack.length === statementLevels[statementLevels.length - 1];
    // Body: decide whether a new chunk starts here (only between statements).
    if (atStatementLevel && statementTokens > 0) {
      const cut =
        lastSignificant === SEMICOLON ||
        ((lastSignificant === CLOSE_BRACKET || lastSignificant === CLOSE_BRACE) &&
          code !== OPEN_BRACKET &&
          code !== SEMICOLON &&
          code !== MINUS) ||
        (newlineSinceSignificant &&
          (isIdChar(lastSignificant) || lastSignificant === QUOTE) &&
          !lastWordIsSubgraph &&
          (isIdChar(code) || code === QUOTE));
      if (cut) {
        statementTokens = 0;
        // A few statements per match: each `match` call has a fixed cost, and a chunk stays small. Past the minimum
        // length, where to cut depends on the statement that ends here, not on where the chunk began: an edit then
        // changes the chunks around it only, and the next cuts fall where they fell before (a `DotParseCache` finds
        // the rest of the file unchanged).
        const length = index - chunkStart;
        if (
          length >= minChunkLength &&
          (length >= 4 * minChunkLength || endsChunk(source, statementFirstToken, index))
        ) {
          segments.push(SEGMENT_STATEMENTS, chunkStart, index);
          chunkStart = index;
          chunkTokens = 0;
        }
      }
    }
    if (
      code === OPEN_BRACE &&
      atStatementLevel &&
      (statementTokens === 0 || (statementFirstIsSubgraph && statementTokens <= 2))
    ) {
      const subgraphStart = statementTokens === 0 ? index : statementFirstToken;
      if (chunkTokens > statementTokens) segments.push(SEGMENT_STATEMENTS, chunkStart, subgraphStart);
      // `subgraph name {` or `{` standing alone: cut its body into segments too, so that a pipeline
      // wrapped in one big cluster is still matched a statement at a time.
      segments.push(SEGMENT_SUBGRAPH_OPEN, subgraphStart, index + 1);
      stack.push(index);
      statementLevels.push(stack.length);
      chunkStart = index + 1;
      chunkTokens = 0;
      statementTokens = 0;
      lastSignificant = code;
      index++;
      continue;
    }
    if (statementTokens === 0) {
      statementFirstToken = index;
      statementFirstIsSubgraph = false;
    }
    statementTokens++;
    chunkTokens++;
    newlineSinceSignificant = false;
    lastWordIsSubgraph = false;

    if (isIdChar(code)) {
      let end = index + 1;
      while (end < length && isIdChar(source.charCodeAt(end))) end++;
      lastWordIsSubgraph = end - index === 8 && source.slice(index, end).toLowerCase() === 'subgraph';
      if (statementTokens === 1) statementFirstIsSubgraph = lastWordIsSubgraph;
      lastSignificant = source.charCodeAt(end - 1);
      index = end;
      continue;
    }
    if (code === QUOTE) {
      index = skipString(context, index, strings);
      lastSignificant = QUOTE;
      continue;
    }
    if (code === LESS_THAN && lastSignificant === EQUALS) {
      throw syntaxError(
        context,
        index,
        htmlLabelEnd(source, index),
        'HTML labels ("<...>") are not supported',
        'Write the value as a quoted string instead, e.g. label="Review changes".',
      );
    }
    if (code === OPEN_BRACKET || code === OPEN_BRACE) {
      stack.push(index);
    } else if (code === CLOSE_BRACKET || code === CLOSE_BRACE) {
      const opener = stack[stack.length - 1]!;
      const openerCode = source.charCodeAt(opener);
      if ((code === CLOSE_BRACKET) !== (openerCode === OPEN_BRACKET)) {
        if (code === CLOSE_BRACKET && openerCode === OPEN_BRACE) {
          throw syntaxError(
            context,
            index,
            index + 1,
            'Unexpected "]": no attribute list is open here',
            'Delete it, or add the "[" that should open this attribute list.',
          );
        }
        throw unclosedError(context, opener, index, stack.length === 1);
      }
      const closesStatementLevel = stack.length === statementLevels[statementLevels.length - 1];
      stack.pop();
      if (closesStatementLevel) {
        statementLevels.pop();
        // More than the `}` itself since the last cut: a last run of statements.
        if (chunkTokens > 1) segments.push(SEGMENT_STATEMENTS, chunkStart, index);
        chunkStart = index + 1;
        chunkTokens = 0;
        statementTokens = 0;
        if (stack.length > 0) {
          segments.push(SEGMENT_SUBGRAPH_CLOSE, index, index + 1);
          afterSubgraphClose = true;
        }
      }
      if (stack.length === 0) {
        bodyEnd = index;
        phase = 'trailer';
      }
    }
    lastSignificant = code;
    index++;
  }

  if (phase === 'header') {
    if (headerStart === -1) {
      throw syntaxError(
        context,
        length,
        length,
        'The file holds no graph',
        'A pipeline file contains one graph: digraph my_pipeline { start -> exit }',
      );
    }
    GRAPH_KEYWORD.lastIndex = headerStart;
    if (!GRAPH_KEYWORD.test(source)) {
      throw syntaxError(
        context,
        headerStart,
        headerStart + 1,
        'A pipeline file must start with "digraph <name> {"',
        'Begin the file with the graph header, e.g. digraph my_pipeline { ... }; comments may come before it.',
      );
    }
    throw syntaxError(
      context,
      length,
      length,
      'The graph\'s body never starts: no "{" found',
      'Write the graph as: digraph my_pipeline { ... }',
    );
  }
  if (phase === 'body') {
    throw unclosedError(context, stack[stack.length - 1]!, length, stack.length === 1);
  }
  return {
    masked: applyMasks(source, masks),
    headerStart,
    bodyStart,
    bodyEnd,
    segments,
    comments,
  };

  function skipString(scanContext: ParseContext, start: number, ranges: number[]): number {
    let from = start + 1;
    for (;;) {
      const quote = source.indexOf('"', from);
      if (quote === -1) throw unclosedStringError(scanContext, start, ranges);
      let backslashes = 0;
      for (let before = quote - 1; before > start && source.charCodeAt(before) === BACKSLASH; before--) {
        backslashes++;
      }
      if (backslashes % 2 === 0) {
        ranges.push(start, quote + 1);
        return quote + 1;
      }
      from = quote + 1;
    }
  }
}

function lineEnd(source: string, from: number): number {
  const newline = source.indexOf('\n', from);
  if (newline === -1) return source.length;
  return source.charCodeAt(newline - 1) === CARRIAGE_RETURN ? newline - 1 : newline;
}

function htmlLabelEnd(source: string, start: number): number {
  let depth = 0;
  for (let index = start; index < source.length; index++) {
    const code = source.charCodeAt(index);
    if (code === LESS_THAN) depth++;
    else if (code === GREATER_THAN && --depth === 0) return index + 1;
    else if (code === NEWLINE) return index;
  }
  return source.length;
}

function unclosedError(context: ParseContext, opener: number, foundAt: number, isGraphBrace: boolean) {
  const bracket = context.source[opener] === '[';
  const found =
    foundAt >= context.source.length
      ? 'the end of the file'
      : `"${context.source[foundAt]}" at ${describeOffset(context, foundAt)}`;
  if (bracket) {
    return syntaxError(
      context,
      opener,
      opener + 1,
      `This "[" is never closed (reached ${found})`,
      'Add "]" after the last attribute of this list.',
    );
  }
  return syntaxError(
    context,
    opener,
    opener + 1,
    isGraphBrace
      ? `The graph's "{" is never closed (reached ${found})`
      : `This subgraph's "{" is never closed (reached ${found})`,
    isGraphBrace
      ? 'Add "}" at the end of the graph. If a subgraph lacks its "}", add it there instead.'
      : 'Add "}" after the last statement of this subgraph.',
  );
}

function unclosedStringError(context: ParseContext, start: number, strings: readonly number[]) {
  const { source } = context;
  // A forgotten closing quote swaps what is string and what is code for the rest of the file, so the
  // string that reaches the end is rarely the one at fault: blame the first string whose text runs
  // on into something that looks like a statement.
  let culprit = start;
  let runsInto = -1;
  const candidates = [...strings, start, source.length];
  for (let pair = 0; pair < candidates.length; pair += 2) {
    const from = candidates[pair]!;
    const match = STATEMENT_LINE.exec(source.slice(from + 1, candidates[pair + 1]! - 1));
    if (match) {
      culprit = from;
      runsInto = from + 1 + match.index + 1;
      break;
    }
  }
  const shortMessage =
    runsInto === -1
      ? 'This string is never closed'
      : `This string is never closed: it runs on into line ${lineOf(context, runsInto)}, which looks like a statement`;
  return syntaxError(
    context,
    culprit,
    culprit + 1,
    shortMessage,
    'Add the closing " where the text ends. Inside a string, write a literal quote as \\".',
  );
}

function applyMasks(source: string, masks: readonly number[]): string {
  if (masks.length === 0) return source;
  const pieces: string[] = [];
  let copied = 0;
  for (let pair = 0; pair < masks.length; pair += 2) {
    const start = masks[pair]!;
    const end = masks[pair + 1]!;
    pieces.push(source.slice(copied, start), source.slice(start, end).replace(/[^\n\r]/g, ' '));
    copied = end;
  }
  pieces.push(source.slice(copied));
  return pieces.join('');
}

function lineOf(context: ParseContext, offset: number): number {
  return positionAt(context.lines, offset).line;
}
