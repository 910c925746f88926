/**
 * `parseDot`, the public entry of the package: scan, match chunk by chunk, build the AST
 * (CONTRIBUTING.md "Grammars").
 */
import type { FailedMatchResult } from 'ohm-js';
import { getCstRoot } from 'ohm-js/v18';
import { type ChunkText, elidedChunk, toSourceOffset, verbatimChunk } from './chunk-text.js';
import type {
  DotAst,
  DotAttribute,
  DotId,
  DotStatement,
  DotSubgraphStatement,
  SourceSpan,
} from './dot-ast.js';
import { dotGrammar } from './dot-grammar.js';
import { ChunkTreeCache, type DotParseCache } from './dot-parse-cache.js';
import { closingQuoteBefore, earlyClosingQuoteMessage } from './early-closing-quote.js';
import { spanAt } from './line-index.js';
import { createParseContext, type ParseContext, syntaxError } from './parse-context.js';
import { type DotScan, SEGMENT_STATEMENTS, SEGMENT_SUBGRAPH_OPEN, scanDot } from './scan-dot.js';
import { type SplitAttributeBlocksOptions, splitAttributeBlocks } from './split-attribute-blocks.js';
import {
  buildAttributeItems,
  buildGraph,
  buildHeader,
  buildStatementsOfTree,
  buildSubgraphOpen,
} from './to-dot-ast.js';

/** Options of {@link parseDot}. */
export interface ParseDotOptions {
  /** Shown in error messages and stored on every span and on the AST. Default: none. */
  readonly filename?: string;
  /**
   * Chunks matched by earlier parses (`createDotParseCache`), for parsing successive versions of a text: chunks whose
   * text is in it are not matched again, and those matched now are added. Same result as without. Default: none.
   */
  readonly cache?: DotParseCache;
}

/**
 * Parses the text of a `.dot` pipeline in the Attractor DOT subset (spec §2.1-§2.13 with the
 * additions of docs/architecture.md "Parsing" and "Dialect") into a {@link DotAst}: the graph id and its
 * statements in source order, each id, key, value and statement with its source span.
 *
 * Values are kept as strings (`raw` as written and decoded `value`) with their token kind; typing
 * them is `@attractor/graph`'s job. Edge chains stay chains. Comments and `#` preprocessor lines are
 * skipped. Pure and synchronous; about O(n) in the length of the text.
 *
 * @param source - The DOT text.
 * @param options - `filename` for messages and spans.
 * @returns The AST.
 * @throws {DotSyntaxError} when the text is not in the subset, with the place (`location`), the
 *   problem (`shortMessage`), a fix (`hint`) and a source excerpt in `message`.
 * @example
 * ```ts
 * import { parseDot, DotSyntaxError } from '@attractor/dot';
 *
 * const ast = parseDot('digraph Hello { start -> exit [label="done"] }', { filename: 'hello.dot' });
 * console.log(ast.id.name); // "Hello"
 * ```
 */
export function parseDot(source: string, options: ParseDotOptions = {}): DotAst {
  const { id, span, statements, filename } = parseDotIncrementally(source, options);
  const all = [...statements];
  return filename === undefined
    ? { kind: 'digraph', id, statements: all, span }
    : { kind: 'digraph', id, statements: all, span, filename };
}

/**
 * A DOT file being parsed by {@link parseDotIncrementally}: what is known once the header has been read,
 * and the top-level statements, parsed as they are taken.
 */
export interface DotStatementStream {
  /** The graph id. */
  readonly id: DotId;
  /** The whole graph, from `digraph` to the closing `}`. */
  readonly span: SourceSpan;
  /** The `filename` option, when given. */
  readonly filename?: string;
  /**
   * The top-level statements in source order, each parsed when the iteration reaches it (a subgraph comes
   * whole, once its `}` is read). Can be iterated once. Throws {@link DotSyntaxError} at the first syntax error,
   * after yielding the statements before it.
   */
  readonly statements: IterableIterator<DotStatement>;
}

/**
 * Parses like {@link parseDot}, but yields the top-level statements one at a time, each as soon as the chunk
 * of text that holds it has been matched, instead of returning the whole AST: a consumer that turns each
 * statement into something smaller (as `@attractor/graph`'s `prepareGraph` does) never holds the AST of the
 * whole file, which for a large file is many times the size of the text. The statements are the same objects
 * `parseDot` would return, in the same order, and a syntax error is the same `DotSyntaxError`.
 *
 * @param source - The DOT text.
 * @param options - `filename` for messages and spans.
 * @returns The graph id and span, and an iterator over the statements.
 * @throws {DotSyntaxError} here for an error the scanner finds (an unclosed string, bracket or brace, a
 *   second graph, ...) or one in the header; from the iterator for an error inside a statement.
 * @example
 * ```ts
 * const stream = parseDotIncrementally(source, { filename: 'big.dot' });
 * let edges = 0;
 * for (const statement of stream.statements) if (statement.kind === 'edgeChain') edges += statement.nodes.length - 1;
 * ```
 */
export function parseDotIncrementally(source: string, options: ParseDotOptions = {}): DotStatementStream {
  const context = createParseContext(source, options.filename);
  const scan = scanDot(context);
  const id = parseHeader(context, scan);
  const span = spanAt(context.lines, scan.headerStart, scan.bodyEnd + 1);
  const statements = topLevelStatements(context, scan, options.cache);
  return context.filename === undefined
    ? { id, span, statements }
    : { id, span, statements, filename: context.filename };
}

/** Matches the body chunk by chunk and yields each top-level statement as soon as it is complete. */
function* topLevelStatements(
  context: ParseContext,
  scan: DotScan,
  cache: DotParseCache | undefined,
  splitOptions: SplitAttributeBlocksOptions = {},
): Generator<DotStatement, void, undefined> {
  // Statement lists of the open subgraphs (innermost last), with where each one opened.
  const levels: Array<{ statements: DotStatement[]; open: { start: number; id: DotId | undefined } }> = [];
  const { segments } = scan;
  for (let index = 0; index < segments.length; index += 3) {
    const kind = segments[index]!;
    const start = segments[index + 1]!;
    const end = segments[index + 2]!;
    const current = levels.at(-1);
    if (kind === SEGMENT_STATEMENTS) {
      // A long attribute block is matched in pieces; its last piece stays in the statement (issue 34 §14).
      const splits = splitAttributeBlocks(scan.masked, start, end, splitOptions);
      const leadingItems = new Map<number, DotAttribute[]>();
      for (const split of splits) {
        const items: DotAttribute[] = [];
        for (const [pieceStart, pieceEnd] of split.pieces) {
          const piece = elidedChunk(scan, pieceStart, pieceEnd);
          const match = dotGrammar.match(piece.text, 'AttrItems');
          if (match.failed()) throw matchFailure(context, scan, match, piece);
          for (const item of buildAttributeItems(match, { parse: context, chunk: piece })) items.push(item);
        }
        leadingItems.set(split.open, items);
      }
      const chunk = elidedChunk(
        scan,
        start,
        end,
        splits.map((split) => [split.pieces[0]![0], split.rest] as const),
      );
      const statements = withinStack(context, scan, start, () => {
        const tree = statementsTree(chunk, cache) ?? failedMatch(context, scan, chunk, 'Statements');
        return buildStatementsOfTree(tree, { parse: context, chunk, leadingItems });
      });
      if (current === undefined) yield* statements;
      else for (const statement of statements) current.statements.push(statement);
    } else if (kind === SEGMENT_SUBGRAPH_OPEN) {
      const chunk = verbatimChunk(scan, start, end);
      const match = dotGrammar.match(chunk.text, 'SubgraphOpen');
      if (match.failed()) throw matchFailure(context, scan, match, chunk);
      const subgraphId = buildSubgraphOpen(match, { parse: context, chunk });
      levels.push({ statements: [], open: { start, id: subgraphId } });
    } else {
      levels.pop();
      const { open, statements } = current!;
      const span = spanAt(context.lines, open.start, end);
      const subgraph: DotSubgraphStatement =
        open.id === undefined
          ? { kind: 'subgraph', statements, span }
          : { kind: 'subgraph', id: open.id, statements, span };
      const outer = levels.at(-1);
      if (outer === undefined) yield subgraph;
      else outer.statements.push(subgraph);
    }
  }
}

/** The tree of a chunk matched with `Statements`, from the cache when it holds it; `undefined` when it does not match. */
function statementsTree(chunk: ChunkText, cache: DotParseCache | undefined) {
  const match = () => {
    const result = dotGrammar.match(chunk.text, 'Statements');
    return result.succeeded() ? getCstRoot(result) : undefined;
  };
  return cache instanceof ChunkTreeCache ? cache.treeOf('Statements', chunk.text, match) : match();
}

/** Matches a chunk that did not match again, for Ohm's failure, and throws it as a `DotSyntaxError`. */
function failedMatch(context: ParseContext, scan: DotScan, chunk: ChunkText, rule: string): never {
  const match = dotGrammar.match(chunk.text, rule);
  if (match.failed()) throw matchFailure(context, scan, match, chunk);
  throw new Error(`the chunk at offset ${chunk.base} matched ${rule} on the second try`);
}

/**
 * Parses like {@link parseDot}, cutting attribute blocks longer than `minBlockLength` into pieces of about
 * `pieceLength` characters (split-attribute-blocks.ts; {@link parseDot} does so past 8,192 characters). For tests
 * only: it shows on small inputs that cutting a block changes nothing.
 */
export function parseDotWithAttributePieces(
  source: string,
  options: ParseDotOptions & SplitAttributeBlocksOptions,
): DotAst {
  const context = createParseContext(source, options.filename);
  const scan = scanDot(context);
  const id = parseHeader(context, scan);
  const statements = [...topLevelStatements(context, scan, undefined, options)];
  return createAst(context, scan, id, statements);
}

/**
 * Parses like {@link parseDot} but matches the whole body with the grammar's `Graph` rule in one go.
 * For tests only: it shows that cutting the body into chunks changes nothing. Far slower on big files.
 */
export function parseDotWithoutChunks(source: string, options: ParseDotOptions = {}): DotAst {
  const context = createParseContext(source, options.filename);
  const scan = scanDot(context);
  const chunk = verbatimChunk(scan, scan.headerStart, scan.bodyEnd + 1);
  const match = dotGrammar.match(chunk.text, 'Graph');
  if (match.failed()) throw matchFailure(context, scan, match, chunk);
  const graph = buildGraph(match, { parse: context, chunk });
  return createAst(context, scan, graph.id, graph.statements);
}

/**
 * Runs a recursive step (Ohm's match of one chunk, the AST builder) and turns a stack overflow into a
 * `DotSyntaxError` at the first brace of the chunk: `{ }` nested inside one statement (an edge to nested anonymous
 * subgraphs) is matched whole, and a few hundred levels of it exhaust the stack. Subgraphs that stand alone as
 * statements are cut by the scanner and nest to any depth.
 */
function withinStack<TResult>(
  context: ParseContext,
  scan: DotScan,
  start: number,
  step: () => TResult,
): TResult {
  try {
    return step();
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    const brace = scan.masked.indexOf('{', start);
    const at = brace === -1 ? start : brace;
    throw syntaxError(
      context,
      at,
      at + 1,
      'The braces here nest too deeply inside one statement to parse',
      'Flatten the nesting, or give each nested block a statement of its own (subgraph name { ... } on its own line, after a ";"), which nests to any depth.',
    );
  }
}

function parseHeader(context: ParseContext, scan: DotScan): DotId {
  const chunk = verbatimChunk(scan, scan.headerStart, scan.bodyStart);
  const match = dotGrammar.match(chunk.text, 'Header');
  if (match.failed()) throw matchFailure(context, scan, match, chunk);
  return buildHeader(match, { parse: context, chunk });
}

function createAst(context: ParseContext, scan: DotScan, id: DotId, statements: DotStatement[]): DotAst {
  const span = spanAt(context.lines, scan.headerStart, scan.bodyEnd + 1);
  return context.filename === undefined
    ? { kind: 'digraph', id, statements, span }
    : { kind: 'digraph', id, statements, span, filename: context.filename };
}

const WORD = /[A-Za-z0-9_]+/y;

/** Turns an Ohm failure into a `DotSyntaxError` with a specific message where the situation is known. */
function matchFailure(context: ParseContext, scan: DotScan, match: FailedMatchResult, chunk: ChunkText) {
  const offset = toSourceOffset(chunk, match.getRightmostFailurePosition());
  const text = scan.masked;
  WORD.lastIndex = offset;
  const word = WORD.test(text) ? text.slice(offset, WORD.lastIndex) : '';
  const character = text[offset];
  const expected = match.getExpectedText();

  if (offset < scan.bodyStart) {
    if (offset === scan.headerStart && !/^(strict|graph|digraph)$/i.test(word)) {
      return syntaxError(
        context,
        offset,
        offset + Math.max(1, word.length),
        'A pipeline file must start with "digraph <name> {"',
        'Begin the file with the graph header, e.g. digraph my_pipeline { ... }; comments may come before it.',
      );
    }
    return syntaxError(
      context,
      offset,
      offset + Math.max(1, word.length),
      `Unexpected ${describeFound(character, word)} in the graph header: expected ${readableExpected(match)}`,
      'Write the header as: digraph my_pipeline {',
    );
  }
  if (character === '=') {
    return syntaxError(
      context,
      offset,
      offset + 1,
      'Unexpected "="',
      'An attribute is written name=value: remove the extra "=", or add the missing name or value next to it.',
    );
  }
  // `run-tests`: a hyphen inside what was meant as one identifier (not `->`, not a negative number).
  const hyphenated = /^(?:-[A-Za-z0-9_]+)+/.exec(text.slice(offset, offset + 200));
  const before = /([A-Za-z_][A-Za-z0-9_]*)$/.exec(text.slice(Math.max(0, offset - 200), offset));
  if (character === '-' && hyphenated !== null && before !== null) {
    const written = `${before[1]}${hyphenated[0]}`;
    return syntaxError(
      context,
      offset - before[1]!.length,
      offset + hyphenated[0].length,
      `"${written}" is not an identifier: identifiers hold letters, digits and "_" only`,
      `Use a bare id and put the text in label: ${written.replaceAll('-', '_')} [label="${written}"]`,
    );
  }
  if (/^(digraph|graph|strict)$/i.test(word) && !expected.includes('"["')) {
    return syntaxError(
      context,
      offset,
      offset + word.length,
      'A graph cannot contain another graph',
      'Close the first graph with "}" before this one, and put each graph in a file of its own (spec §2.3).',
    );
  }
  const quote = closingQuoteBefore(context.source, offset);
  if (quote !== undefined) {
    const { shortMessage, hint } = earlyClosingQuoteMessage(describeFound(character, word));
    return syntaxError(context, quote, quote + 1, shortMessage, hint);
  }
  return syntaxError(
    context,
    offset,
    offset + Math.max(1, word.length),
    `Unexpected ${describeFound(character, word)}: expected ${readableExpected(match)}`,
    hintFor(expected),
  );
}

/**
 * The expected text without single-letter terminals (the letter-by-letter keyword spellings) and
 * "end of input", joined as prose: `a node id, "[" or "->"`.
 */
function readableExpected(match: FailedMatchResult): string {
  const items = match
    .getExpectedText()
    .replace(/,? or /, ', ')
    .split(', ')
    .filter((item) => !/^"[A-Za-z]"$/.test(item) && item !== 'end of input' && item !== '"--"');
  const unique = [...new Set(items)];
  if (unique.length === 0) return 'a statement';
  return unique.length === 1 ? unique[0]! : `${unique.slice(0, -1).join(', ')} or ${unique.at(-1)}`;
}

function describeFound(character: string | undefined, word: string): string {
  if (character === undefined) return 'the end of the file';
  if (word.length > 0) return `"${word}"`;
  if (character === '\n' || character === '\r') return 'the end of the line';
  return `"${character}"`;
}

function hintFor(expected: string): string {
  if (expected.includes('an attribute value')) {
    return 'Write a value after "=": a quoted string ("text"), a number, true or false, a duration (900s) or a bare word.';
  }
  if (expected.includes('a node id')) {
    return 'Node ids are bare identifiers such as plan_step; edges are written a -> b (spec §2.2).';
  }
  if (expected.includes('an attribute name')) {
    return 'Attributes are written name=value inside [ ], separated by commas (spec §2.2).';
  }
  return 'Compare the statement with the DOT subset of spec §2.2; quote values that contain spaces or symbols.';
}
