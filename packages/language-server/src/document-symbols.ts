import { type DocumentSymbol, SymbolKind } from 'vscode-languageserver';
import type { PipelineDocument } from './pipeline-document.js';
import { handlerTypeOf, type IndexedNode, type IndexedSubgraph, type TextRange } from './pipeline-index.js';

/** The symbol kind an editor shows for a node of each built-in handler type (others: a function, like an LLM stage). */
const NODE_KINDS: Readonly<Record<string, SymbolKind>> = {
  start: SymbolKind.Event,
  exit: SymbolKind.Event,
  'wait.human': SymbolKind.Interface,
  conditional: SymbolKind.Operator,
  parallel: SymbolKind.Struct,
  'parallel.fan_in': SymbolKind.Struct,
  tool: SymbolKind.Method,
  'stack.manager_loop': SymbolKind.Class,
  subgraph: SymbolKind.Module,
};

/**
 * The outline of a pipeline: the graph, its subgraphs (nested as written) and its nodes (in the subgraph where each
 * first appears), each node with its handler type and label.
 */
export function documentSymbols(pipeline: PipelineDocument): DocumentSymbol[] {
  const { document, index } = pipeline;
  const range = (text: TextRange) => ({
    start: document.positionAt(text.start),
    end: document.positionAt(text.end),
  });
  const inSubgraph = new Set<string>();
  const collect = (subgraphs: readonly IndexedSubgraph[]) => {
    for (const subgraph of subgraphs) {
      for (const id of subgraph.nodes) inSubgraph.add(id);
      collect(subgraph.subgraphs);
    }
  };
  collect(index.subgraphs);
  const nodeSymbol = (node: IndexedNode): DocumentSymbol => {
    const type = handlerTypeOf(node.attributes);
    const label = node.attributes.get('label');
    return {
      name: node.id,
      detail: label === undefined || label === node.id ? type : `${type} · ${label}`,
      kind: NODE_KINDS[type] ?? SymbolKind.Function,
      range: range(node.statements[0] ?? node.definition),
      selectionRange: range(node.definition),
    };
  };
  const subgraphSymbol = (subgraph: IndexedSubgraph): DocumentSymbol => ({
    name: subgraph.id?.name ?? '(anonymous subgraph)',
    ...(subgraph.label === undefined ? {} : { detail: subgraph.label }),
    kind: SymbolKind.Namespace,
    range: range(subgraph),
    selectionRange: range(subgraph.id ?? { start: subgraph.start, end: subgraph.start + 1 }),
    children: [
      ...subgraph.nodes.map((id) => nodeSymbol(index.nodes.get(id)!)),
      ...subgraph.subgraphs.map(subgraphSymbol),
    ],
  });
  const children = [
    ...[...index.nodes.values()].filter((node) => !inSubgraph.has(node.id)).map(nodeSymbol),
    ...index.subgraphs.map(subgraphSymbol),
  ].sort((left, right) => compare(left.range.start, right.range.start));
  const whole = { start: 0, end: document.getText().length };
  return [
    {
      name: index.graphId?.name ?? 'digraph',
      detail: 'pipeline',
      kind: SymbolKind.Module,
      range: range(whole),
      selectionRange: range(index.graphId ?? { start: 0, end: 0 }),
      children,
    },
  ];
}

function compare(
  left: { line: number; character: number },
  right: { line: number; character: number },
): number {
  return left.line - right.line || left.character - right.character;
}
