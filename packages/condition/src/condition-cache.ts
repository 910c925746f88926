import type { ConditionAst } from './condition-ast.js';
import { parseCondition } from './parse-condition.js';

/** How many distinct condition strings {@link parseConditionCached} keeps. */
export const CONDITION_CACHE_SIZE = 512;

const cache = new Map<string, ConditionAst>();

/**
 * `parseCondition` with a least-recently-used cache of {@link CONDITION_CACHE_SIZE} entries, for
 * evaluators that see the same edge conditions on every step. Failures are not cached. Internal.
 *
 * @throws {ConditionSyntaxError} as `parseCondition`.
 */
export function parseConditionCached(text: string): ConditionAst {
  const cached = cache.get(text);
  if (cached !== undefined) {
    cache.delete(text);
    cache.set(text, cached);
    return cached;
  }
  const ast = parseCondition(text);
  if (cache.size >= CONDITION_CACHE_SIZE) {
    const oldest = cache.keys().next();
    if (!oldest.done) cache.delete(oldest.value);
  }
  cache.set(text, ast);
  return ast;
}
