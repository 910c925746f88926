const patterns = new Map<string, RegExp>();
const PATTERN_CACHE_LIMIT = 256;

/**
 * The regular expression of a `matches` literal, compiled once per text (unanchored, no flags). Internal.
 *
 * @throws {SyntaxError} when the text is not a valid JavaScript regular expression; `parseCondition` checks every
 *   `matches` literal, so a parsed condition never throws here.
 */
export function compiledPattern(text: string): RegExp {
  let pattern = patterns.get(text);
  if (pattern === undefined) {
    pattern = new RegExp(text);
    if (patterns.size >= PATTERN_CACHE_LIMIT) patterns.clear();
    patterns.set(text, pattern);
  }
  return pattern;
}
