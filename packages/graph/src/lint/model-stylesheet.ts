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

/** Parses `graph.settings.modelStylesheet` (cached per graph). Never throws a `StylesheetSyntaxError`. */
export function graphStylesheet(graph: Graph): GraphStylesheet {
  const cached = cache.get(graph);
  if (cached) return cached;
  const text = graph.settings.modelStylesheet;
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
  return result;
}
