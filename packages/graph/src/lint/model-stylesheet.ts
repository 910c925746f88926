/**
 * Parses a graph's `model_stylesheet` once per graph for the stylesheet lint rules and the
 * stylesheet transform, converting a syntax error into data.
 */
import { type ParsedStylesheet, parseStylesheet, StylesheetSyntaxError } from '@attractor/stylesheet';
import type { Graph } from '../graph.js';

/** A graph's stylesheet: absent, parsed, or a syntax error. */
export type GraphStylesheet =
  | { readonly kind: 'none' }
  | { readonly kind: 'parsed'; readonly stylesheet: ParsedStylesheet }
  | { readonly kind: 'invalid'; readonly error: StylesheetSyntaxError };

const cache = new WeakMap<Graph, GraphStylesheet>();
// The last text parsed: the stylesheet transform and the lint rules see different graphs (the transform
// returns a new one) with the same stylesheet, and a cold parse costs 10-30 ms of a CLI command.
let last: { readonly text: string; readonly result: GraphStylesheet } | undefined;

/**
 * Parses `graph.settings.modelStylesheet` (cached per graph, and by text for the last stylesheet parsed).
 * Never throws a `StylesheetSyntaxError`.
 */
export function graphStylesheet(graph: Graph): GraphStylesheet {
  const cached = cache.get(graph);
  if (cached) return cached;
  const text = graph.settings.modelStylesheet;
  if (last?.text === text) {
    cache.set(graph, last.result);
    return last.result;
  }
  let result: GraphStylesheet;
  if (text.trim() === '') result = { kind: 'none' };
  else {
    try {
      result = { kind: 'parsed', stylesheet: parseStylesheet(text) };
    } catch (error) {
      if (!StylesheetSyntaxError.isInstance(error)) throw error;
      result = { kind: 'invalid', error };
    }
  }
  cache.set(graph, result);
  last = { text, result };
  return result;
}
