import { dirname, resolve } from 'node:path';
import { SHAPE_TO_HANDLER_TYPE } from '@attractor/graph';
import type { Hover } from 'vscode-languageserver';
import { describeKey, scopeOf } from './attribute-help.js';
import type { PipelineDocument } from './pipeline-document.js';
import { handlerTypeOf, type IndexedNode, type TextRange } from './pipeline-index.js';
import { symbolAt } from './symbol-at.js';

/** How many edges a node's hover lists each way before it says how many more. */
const EDGES_SHOWN = 8;

/**
 * The hover at `offset`: an attribute key or value (meaning, value type, default, spec section; a shape's handler
 * type), a node id (its handler type, shape, label, prompt and edges), `$goal` (the goal) or `$context.<key>`, a class
 * (the nodes that have it) or a file reference (where it points). `null` elsewhere.
 */
export function hoverAt(pipeline: PipelineDocument, offset: number): Hover | null {
  const { index, project } = pipeline;
  const symbol = symbolAt(index, offset);
  if (symbol === undefined) return null;
  let markdown: string;
  let range: TextRange;
  switch (symbol.kind) {
    case 'node': {
      markdown = describeNode(pipeline, index.nodes.get(symbol.occurrence.id)!);
      range = symbol.occurrence;
      break;
    }
    case 'variable': {
      const { name } = symbol.reference;
      markdown =
        name === 'goal'
          ? `**$goal** · the graph's goal (spec §4.5)\n\n${quoteBlock(index.graphAttributes.get('goal') ?? '')}`
          : `**$${name}** · the run context's \`${name.slice('context.'.length)}\`\n\nExpanded in the \`var.*\` values of sub-pipeline nodes; in a prompt only \`$goal\` is expanded (spec §4.5).`;
      range = symbol.reference;
      break;
    }
    case 'class': {
      const { name } = symbol.occurrence;
      const nodes = [...index.nodes.values()].filter((node) =>
        (node.attributes.get('class') ?? '').split(',').some((item) => item.trim() === name),
      );
      const selected = index.classes.some((item) => item.name === name && item.kind === 'selector');
      markdown = `**.${name}** · stylesheet class (spec §2.12, §8)\n\n${nodes.length === 0 ? 'No node has it' : `Nodes: ${nodes.map((node) => node.id).join(', ')}`}${selected ? '' : '\n\nNo stylesheet rule selects it.'}`;
      range = symbol.occurrence;
      break;
    }
    case 'file': {
      const { reference } = symbol;
      const path =
        pipeline.filename === undefined
          ? reference.path
          : resolve(dirname(pipeline.filename), reference.path);
      markdown = `**${reference.key === 'prompt' ? 'prompt file' : 'pipeline file'}** \`${path}\``;
      range = reference;
      break;
    }
    case 'key':
    case 'value': {
      const { attribute } = symbol;
      const owner = attribute.owner;
      const type =
        owner.kind === 'node' ? handlerTypeOf(index.nodes.get(owner.id)?.attributes ?? new Map()) : undefined;
      markdown = describeKey(attribute.key, {
        scope: scopeOf(owner),
        ...(type === undefined ? {} : { type }),
        project,
      });
      const shapeType = (SHAPE_TO_HANDLER_TYPE as Record<string, string>)[attribute.value?.text ?? ''];
      if (symbol.kind === 'value' && attribute.canonicalKey === 'shape') {
        markdown = `**shape=${attribute.value!.text}** · ${shapeType === undefined ? 'no handler of its own: an LLM (codergen) stage' : `the \`${shapeType}\` handler`} (spec §2.8)\n\n---\n\n${markdown}`;
      }
      range = symbol.kind === 'key' ? attribute.keyRange : attribute.value!;
      break;
    }
  }
  const { document } = pipeline;
  return {
    contents: { kind: 'markdown', value: markdown },
    range: { start: document.positionAt(range.start), end: document.positionAt(range.end) },
  };
}

function describeNode(pipeline: PipelineDocument, node: IndexedNode): string {
  const type = handlerTypeOf(node.attributes);
  const shape = node.attributes.get('shape') ?? 'box';
  const lines = [`**${node.id}** · \`${type}\` node (shape ${shape})`];
  const label = node.attributes.get('label');
  if (label !== undefined && label !== node.id) lines.push('', `label: ${label}`);
  const prompt = node.attributes.get('prompt');
  if (prompt !== undefined && prompt.trim() !== '') lines.push('', quoteBlock(firstLines(prompt, 3)));
  const edges = pipeline.index.edges;
  const incoming = edges.filter((edge) => edge.to === node.id).map((edge) => edge.from);
  const outgoing = edges
    .filter((edge) => edge.from === node.id)
    .map(
      (edge) => `${edge.to}${edge.condition ? ` [${edge.condition}]` : edge.label ? ` [${edge.label}]` : ''}`,
    );
  lines.push('', `from: ${listed(incoming)}`, '', `to: ${listed(outgoing)}`);
  return lines.join('\n');
}

function listed(items: readonly string[]): string {
  if (items.length === 0) return '—';
  const shown = items.slice(0, EDGES_SHOWN).map((item) => `\`${item}\``);
  return items.length > EDGES_SHOWN
    ? `${shown.join(', ')} and ${items.length - EDGES_SHOWN} more`
    : shown.join(', ');
}

function firstLines(text: string, count: number): string {
  const lines = text.trim().split('\n');
  return lines.length > count ? `${lines.slice(0, count).join('\n')}\n…` : lines.join('\n');
}

function quoteBlock(text: string): string {
  return text === ''
    ? '_(empty)_'
    : text
        .split('\n')
        .map((line) => `> ${line}`)
        .join('\n');
}
