import type { Node as OhmNode } from 'ohm-js';
import { formatExcerpt } from './format-excerpt.js';
import type { StylesheetDeclaration, StylesheetSelector, StylesheetSpan } from './stylesheet-ast.js';
import { stylesheetGrammar } from './stylesheet-grammar.js';

/** A rule as written, before specificity, order and the property checks are applied. Internal. */
export interface RawStylesheetRule {
  readonly selector: StylesheetSelector;
  readonly declarations: readonly StylesheetDeclaration[];
  readonly span: StylesheetSpan;
}

function spanOf(node: OhmNode): StylesheetSpan {
  return { offset: node.source.startIdx, length: node.source.endIdx - node.source.startIdx };
}

function unquote(raw: string): string {
  return raw.slice(1, -1).replace(/\\([\s\S])/g, '$1');
}

/** The semantics that turn a stylesheet CST into raw rules. Internal. */
const semantics = stylesheetGrammar.createSemantics().addOperation<unknown>('toAst', {
  Stylesheet(rules: OhmNode): readonly RawStylesheetRule[] {
    return rules.children.map((rule) => rule.toAst() as RawStylesheetRule);
  },
  Rule(selector: OhmNode, _open: OhmNode, declarations: OhmNode, _close: OhmNode): RawStylesheetRule {
    return {
      selector: selector.toAst() as StylesheetSelector,
      declarations: declarations.toAst() as readonly StylesheetDeclaration[],
      span: spanOf(this as unknown as OhmNode),
    };
  },
  Declarations(list: OhmNode, _semicolon: OhmNode): readonly StylesheetDeclaration[] {
    return list.asIteration().children.map((declaration) => declaration.toAst() as StylesheetDeclaration);
  },
  Declaration(property: OhmNode, _colon: OhmNode, value: OhmNode): StylesheetDeclaration {
    const start = property.source.startIdx;
    return {
      property: property.sourceString,
      value: value.toAst() as string,
      span: { offset: start, length: value.source.endIdx - start },
      propertySpan: spanOf(property),
      valueSpan: spanOf(value),
    };
  },
  selector_universal(_star: OhmNode): StylesheetSelector {
    return { kind: 'universal', value: '', span: spanOf(this as unknown as OhmNode) };
  },
  selector_id(_hash: OhmNode, id: OhmNode): StylesheetSelector {
    return { kind: 'id', value: id.sourceString, span: spanOf(this as unknown as OhmNode) };
  },
  selector_class(_dot: OhmNode, name: OhmNode): StylesheetSelector {
    return { kind: 'class', value: name.sourceString, span: spanOf(this as unknown as OhmNode) };
  },
  selector_shape(shape: OhmNode): StylesheetSelector {
    return { kind: 'shape', value: shape.sourceString, span: spanOf(shape) };
  },
  value_quoted(string: OhmNode): string {
    return unquote(string.sourceString);
  },
  value_bare(bare: OhmNode): string {
    return bare.sourceString;
  },
});

/**
 * Matches `source` against the stylesheet grammar. Returns the raw rules, or Ohm's rightmost failure
 * offset, expected text and excerpt for the caller to turn into a `StylesheetSyntaxError`. Internal.
 */
export function matchStylesheet(
  source: string,
):
  | { readonly ok: true; readonly rules: readonly RawStylesheetRule[] }
  | { readonly ok: false; readonly offset: number; readonly expected: string; readonly excerpt: string } {
  const match = stylesheetGrammar.match(source);
  if (match.failed()) {
    const offset = match.getRightmostFailurePosition();
    return { ok: false, offset, expected: match.getExpectedText(), excerpt: formatExcerpt(source, offset) };
  }
  return { ok: true, rules: semantics(match).toAst() as readonly RawStylesheetRule[] };
}
