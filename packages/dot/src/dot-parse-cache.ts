/**
 * A cache of matched chunks for parsing the same file again and again (an editor's language server re-parses the
 * whole text after every keystroke): the concrete syntax tree of each chunk, keyed by the chunk's text as Ohm matches
 * it, so a chunk the edit did not touch is not matched again.
 */
import type { CstNode } from './cst-node.js';

/**
 * Concrete syntax trees of chunks already matched, for `parseDot(source, { cache })`. Opaque: create one with
 * {@link createDotParseCache} and pass it to every parse of the texts it should serve.
 */
export interface DotParseCache {
  /** Characters of chunk text the cache holds now (for tests and measurements). */
  readonly size: number;
  /** Chunks looked up so far that were found (`hits`) and that had to be matched (`misses`). */
  readonly stats: { readonly hits: number; readonly misses: number };
}

/** Options of {@link createDotParseCache}. */
export interface DotParseCacheOptions {
  /**
   * The most characters of chunk text the cache keeps; past it, the chunks used least recently are dropped. A
   * chunk's tree takes roughly 100 to 200 bytes of memory per character. Default: 4,000,000 (a few files of a
   * megabyte each, or one of several megabytes).
   */
  readonly maxChars?: number;
}

/** The implementation behind {@link DotParseCache}. Internal to the package. */
export class ChunkTreeCache implements DotParseCache {
  readonly #maxChars: number;
  readonly #trees = new Map<string, CstNode>();
  #size = 0;
  #hits = 0;
  #misses = 0;

  constructor(options: DotParseCacheOptions = {}) {
    this.#maxChars = options.maxChars ?? 4_000_000;
  }

  get size(): number {
    return this.#size;
  }

  get stats(): { readonly hits: number; readonly misses: number } {
    return { hits: this.#hits, misses: this.#misses };
  }

  /**
   * The tree of `text` matched with `rule`: the cached one (marked as used last), else `match(text)`'s, which is kept
   * unless it is `undefined` (a chunk that did not match is never cached: its error is reported from a fresh match).
   */
  treeOf(rule: string, text: string, match: () => CstNode | undefined): CstNode | undefined {
    const key = `${rule}\u0000${text}`;
    const cached = this.#trees.get(key);
    if (cached !== undefined) {
      this.#hits++;
      this.#trees.delete(key);
      this.#trees.set(key, cached);
      return cached;
    }
    this.#misses++;
    const tree = match();
    if (tree === undefined || text.length > this.#maxChars) return tree;
    this.#trees.set(key, tree);
    this.#size += text.length;
    for (const [oldKey] of this.#trees) {
      if (this.#size <= this.#maxChars) break;
      this.#trees.delete(oldKey);
      this.#size -= oldKey.length - rule.length - 1;
    }
    return tree;
  }
}

/**
 * Creates a cache for parsing texts that share most of their statements, such as the successive versions of a file
 * being edited: pass it as `parseDot(source, { cache })` (or `parseDotIncrementally`, or `prepareGraph`'s
 * `parseCache`) on every parse. The body of a file is matched in chunks of a few statements, with the text of strings
 * and the tails of identifiers left out (so `stage_12 [label="Twelve"]` and `stage_13 [label="Thirteen"]` are the
 * same to the grammar); a chunk whose text was matched before is not matched again, and the tree is read against the
 * new file. The parse result is the same with or without a cache. Not shared between threads; any number of files
 * may share one cache.
 *
 * @example
 * const cache = createDotParseCache();
 * for (const version of versions) parseDot(version, { filename: 'big.dot', cache });
 */
export function createDotParseCache(options: DotParseCacheOptions = {}): DotParseCache {
  return new ChunkTreeCache(options);
}
