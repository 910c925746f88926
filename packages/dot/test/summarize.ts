import type { DotAttribute, DotStatement } from '../src/dot-ast.js';

/** A compact view of statements for AST-shape assertions: kinds, ids and `key: value` pairs. */
export type StatementSummary =
  | { kind: 'graphAttributes' | 'nodeDefaults' | 'edgeDefaults'; attributes: Record<string, string> }
  | { kind: 'attributeDeclaration'; key: string; value: string }
  | { kind: 'node'; id: string; attributes: Record<string, string> }
  | { kind: 'edgeChain'; nodes: string[]; attributes: Record<string, string> }
  | { kind: 'subgraph'; id?: string; statements: StatementSummary[] };

function attributeMap(attributes: readonly DotAttribute[]): Record<string, string> {
  return Object.fromEntries(attributes.map((attribute) => [attribute.key, attribute.value.value]));
}

/** Summarizes statements (recursively for subgraphs). */
export function summarize(statements: readonly DotStatement[]): StatementSummary[] {
  return statements.map(summarizeStatement);
}

function summarizeStatement(statement: DotStatement): StatementSummary {
  switch (statement.kind) {
    case 'graphAttributes':
    case 'nodeDefaults':
    case 'edgeDefaults':
      return { kind: statement.kind, attributes: attributeMap(statement.attributes) };
    case 'attributeDeclaration':
      return { kind: statement.kind, key: statement.attribute.key, value: statement.attribute.value.value };
    case 'node':
      return { kind: 'node', id: statement.id.name, attributes: attributeMap(statement.attributes) };
    case 'edgeChain':
      return {
        kind: 'edgeChain',
        nodes: statement.nodes.map((node) => node.name),
        attributes: attributeMap(statement.attributes),
      };
    case 'subgraph':
      return statement.id === undefined
        ? { kind: 'subgraph', statements: summarize(statement.statements) }
        : { kind: 'subgraph', id: statement.id.name, statements: summarize(statement.statements) };
  }
}
