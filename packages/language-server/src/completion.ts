import { readdirSync } from 'node:fs';
import { dirname } from 'node:path';
import {
  ATTRIBUTE_DEFINITIONS,
  type AttributeScope,
  attributeDefinition,
  SHAPE_TO_HANDLER_TYPE,
  SPEC_HANDLER_TRAITS,
  STANDARD_OUTCOMES,
} from '@attractor/graph';
import { type CompletionItem, CompletionItemKind, type TextEdit } from 'vscode-languageserver';
import { handlerAttributeKeys, scopeOf } from './attribute-help.js';
import type { PipelineDocument } from './pipeline-document.js';
import {
  type AttributeOwner,
  handlerTypeOf,
  type IndexedAttribute,
  type PipelineIndex,
  type TextRange,
} from './pipeline-index.js';
import { containing, within } from './symbol-at.js';

/** Where the cursor is, for completion. */
type Place =
  | { readonly kind: 'key'; readonly owner: AttributeOwner; readonly replace: TextRange }
  | {
      readonly kind: 'value';
      readonly key: string;
      readonly owner: AttributeOwner;
      readonly replace: TextRange;
      /** Inside quotes: the text before the cursor in the string, for conditions. */
      readonly inString?: string;
    }
  | { readonly kind: 'edgeTarget'; readonly replace: TextRange }
  | { readonly kind: 'statement'; readonly replace: TextRange };

/** Keys every node may have, whatever its handler (spec §2.6). */
const COMMON_NODE_KEYS = [
  'label',
  'shape',
  'type',
  'class',
  'max_retries',
  'goal_gate',
  'retry_target',
  'fallback_retry_target',
  'timeout',
  'max_visits',
  'auto_status',
  'allow_partial',
];
/** Context keys the engine sets for every run (spec §5.1). */
const ENGINE_CONTEXT_KEYS = ['last_stage', 'last_response', 'current_node', 'graph.goal'];

/**
 * The completions at `offset`: in an attribute list, the keys valid there (for a node: the keys of its handler type,
 * a plug-in's declared keys included, and the keys every node has; for an edge or the graph: theirs); after `key=`,
 * its values (shapes with their handler types, handler types, enumerations and booleans, node ids for
 * `retry_target` / `fallback_retry_target` / `human.default_choice`, models of the price table for `llm_model`, DOT
 * files for `graph_ref`, and in a `condition` its keys and outcomes); node ids after `->` and at the start of a
 * statement (with the keywords there).
 */
export function completionsAt(pipeline: PipelineDocument, offset: number): CompletionItem[] {
  const place = placeAt(pipeline.document.getText(), pipeline.index, offset);
  if (place === undefined) return [];
  const { document } = pipeline;
  const range = {
    start: document.positionAt(place.replace.start),
    end: document.positionAt(place.replace.end),
  };
  const item = (
    label: string,
    kind: CompletionItemKind,
    detail?: string,
    insert = label,
    sortText?: string,
  ): CompletionItem => ({
    label,
    kind,
    ...(detail === undefined ? {} : { detail }),
    ...(sortText === undefined ? {} : { sortText }),
    textEdit: { range, newText: insert } satisfies TextEdit,
  });
  const nodeIds = () =>
    [...pipeline.index.nodes.values()].map((node) =>
      item(node.id, CompletionItemKind.Reference, `${handlerTypeOf(node.attributes)} node`),
    );
  switch (place.kind) {
    case 'edgeTarget':
      return nodeIds();
    case 'statement':
      return [
        ...nodeIds(),
        ...['node', 'edge', 'graph', 'subgraph'].map((keyword) => item(keyword, CompletionItemKind.Keyword)),
        ...keysFor('graph').map((key) =>
          item(
            key,
            CompletionItemKind.Property,
            ATTRIBUTE_DEFINITIONS[key as 'goal']?.description,
            `${key}=`,
          ),
        ),
      ];
    case 'key': {
      const written = new Set(
        pipeline.index.attributes
          .filter(
            (attribute) =>
              sameOwner(attribute.owner, place.owner) && attribute.keyRange.start !== place.replace.start,
          )
          .map((attribute) => attribute.key),
      );
      return validKeys(pipeline, place.owner)
        .filter(({ key }) => !written.has(key))
        .map(({ key, detail }, position) =>
          item(
            key,
            CompletionItemKind.Property,
            detail,
            `${quoteKey(key)}=`,
            String(position).padStart(4, '0'),
          ),
        );
    }
    case 'value':
      return valuesFor(pipeline, place).map(({ value, detail, kind }, position) =>
        item(
          value,
          kind ?? CompletionItemKind.Value,
          detail,
          place.inString !== undefined ? value : quoteValue(value),
          String(position).padStart(4, '0'),
        ),
      );
  }
}

/** The keys valid for an owner, each with a short description, the most specific first. */
function validKeys(
  pipeline: PipelineDocument,
  owner: AttributeOwner,
): { readonly key: string; readonly detail?: string }[] {
  const scope = scopeOf(owner);
  if (scope !== 'node') return keysFor(scope).map((key) => ({ key, detail: describe(key) }));
  const keys: { key: string; detail?: string }[] = [];
  const seen = new Set<string>();
  const add = (key: string, detail?: string) => {
    if (seen.has(key)) return;
    seen.add(key);
    keys.push(detail === undefined ? { key } : { key, detail });
  };
  if (owner.kind === 'node') {
    const type = handlerTypeOf(pipeline.index.nodes.get(owner.id)?.attributes ?? new Map());
    for (const key of handlerAttributeKeys(type, pipeline.project)) {
      add(key, describe(key) ?? `attribute of the ${type} handler`);
    }
  } else {
    // `node [...]` defaults may be meant for any handler.
    for (const key of keysFor('node')) add(key, describe(key));
    for (const handler of pipeline.project.handlers) {
      for (const key of handler.attributeKeys) add(key, `attribute of the ${handler.type} handler`);
    }
  }
  for (const key of COMMON_NODE_KEYS) add(key, describe(key));
  return keys;
}

function keysFor(scope: AttributeScope): string[] {
  return Object.values(ATTRIBUTE_DEFINITIONS)
    .filter((definition) => (definition.scopes as readonly string[]).includes(scope))
    .map((definition) => definition.key);
}

function describe(key: string): string | undefined {
  return attributeDefinition(key)?.description;
}

/** The values to offer for `place.key`. */
function valuesFor(
  pipeline: PipelineDocument,
  place: Extract<Place, { kind: 'value' }>,
): { readonly value: string; readonly detail?: string; readonly kind?: CompletionItemKind }[] {
  const { index, project } = pipeline;
  const key = place.key;
  if (key === 'condition' || key === 'manager.stop_condition') return conditionValues(index, place);
  if (key === 'shape') {
    return Object.entries(SHAPE_TO_HANDLER_TYPE).map(([shape, type]) => ({
      value: shape,
      detail: `${type} handler`,
    }));
  }
  if (key === 'type') {
    return project.handlerTypes.map((type) => ({
      value: type,
      detail: project.handlers.some((handler) => handler.type === type)
        ? 'plug-in handler'
        : 'built-in handler',
    }));
  }
  if (key === 'retry_target' || key === 'fallback_retry_target' || key === 'human.default_choice') {
    return [...index.nodes.keys()].map((id) => ({
      value: id,
      detail: 'node',
      kind: CompletionItemKind.Reference,
    }));
  }
  if (key === 'llm_model') return project.models.map((model) => ({ value: model, detail: 'model' }));
  if (key === 'graph_ref' || key === 'stack.child_dotfile') return dotFiles(pipeline);
  const values = attributeDefinition(key)?.values ?? [];
  return values.map((value) => ({ value }));
}

/** Keys inside a condition, or the outcomes and labels after `outcome=` / `preferred_label=`. */
function conditionValues(
  index: PipelineIndex,
  place: Extract<Place, { kind: 'value' }>,
): { readonly value: string; readonly detail?: string; readonly kind?: CompletionItemKind }[] {
  const clause = (place.inString ?? '').split(/&&|\|\|/).at(-1) ?? '';
  const comparison = /^\s*([A-Za-z0-9_.]+)\s*!?=\s*[^=]*$/.exec(clause);
  const source = place.owner.kind === 'edge' ? place.owner.nodes[0] : undefined;
  if (comparison !== null) {
    const compared = comparison[1]!;
    if (compared === 'outcome') {
      const node = source === undefined ? undefined : index.nodes.get(source);
      const declared =
        node === undefined ? undefined : SPEC_HANDLER_TRAITS[handlerTypeOf(node.attributes)]?.outcomes;
      return [...new Set([...(declared ?? []), ...STANDARD_OUTCOMES])].map((value) => ({
        value,
        detail: declared?.includes(value) ? `an outcome of ${source}` : 'status',
        kind: CompletionItemKind.EnumMember,
      }));
    }
    if (compared === 'preferred_label') {
      return index.edges
        .filter((edge) => edge.from === source && edge.label !== undefined)
        .map((edge) => ({ value: edge.label!, detail: `label of ${edge.from} -> ${edge.to}` }));
    }
    return [];
  }
  const contextKeys = new Set(ENGINE_CONTEXT_KEYS);
  for (const node of index.nodes.values()) {
    const keys = SPEC_HANDLER_TRAITS[handlerTypeOf(node.attributes)]?.contextKeys;
    for (const key of keys?.keys ?? []) contextKeys.add(`${keys!.prefix}${key}`);
    const written = node.attributes.get('human.context_key');
    if (written !== undefined && written !== '') contextKeys.add(written);
  }
  return [
    { value: 'outcome', detail: "the node's outcome (spec §10.2)", kind: CompletionItemKind.Keyword },
    { value: 'preferred_label', detail: "the outcome's preferred label", kind: CompletionItemKind.Keyword },
    ...[...contextKeys].map((key) => ({
      value: `context.${key}`,
      detail: 'run context',
      kind: CompletionItemKind.Variable,
    })),
  ];
}

function dotFiles(
  pipeline: PipelineDocument,
): { readonly value: string; readonly kind: CompletionItemKind }[] {
  if (pipeline.filename === undefined) return [];
  try {
    const own = pipeline.filename.slice(dirname(pipeline.filename).length + 1);
    return readdirSync(dirname(pipeline.filename))
      .filter((name) => name.endsWith('.dot') && name !== own)
      .map((name) => ({ value: name, kind: CompletionItemKind.File }));
  } catch {
    return [];
  }
}

/** Where `offset` is: in a list (at a key or a value), after `->`, at a statement's start; or nowhere to complete. */
function placeAt(text: string, index: PipelineIndex, offset: number): Place | undefined {
  const comment = containing(index.comments, offset);
  if (comment !== undefined && comment.start < offset) return undefined;
  const list = containing(index.lists, offset);
  const inList = list !== undefined && offset > list.start && (!list.closed || offset < list.end);
  const attribute = lastAttributeBefore(index, offset, inList ? list.start : undefined);
  if (attribute !== undefined) {
    const value = attribute.value;
    if (value !== undefined) {
      const closed = value.end - value.start >= 2 && text[value.end - 1] === '"';
      const inside = value.quoted
        ? offset > value.start && (offset < value.end || !closed)
        : offset >= value.start && offset <= value.end;
      if (inside) return valuePlace(text, attribute, offset);
    }
    if (within(attribute.keyRange, offset)) {
      return inList
        ? { kind: 'key', owner: attribute.owner, replace: attribute.keyRange }
        : { kind: 'statement', replace: attribute.keyRange };
    }
    if (value === undefined && /^\s*=\s*$/.test(text.slice(attribute.keyRange.end, offset))) {
      return {
        kind: 'value',
        key: attribute.canonicalKey,
        owner: attribute.owner,
        replace: { start: offset, end: offset },
      };
    }
  }
  const word = wordBefore(text, offset);
  if (inList) return { kind: 'key', owner: list.owner, replace: word };
  // What precedes the word, blanks skipped (line breaks count: a statement starts on a new line).
  let before = word.start - 1;
  while (before >= 0 && (text[before] === ' ' || text[before] === '\t' || text[before] === '\r')) before--;
  if (before >= 1 && text[before] === '>' && text[before - 1] === '-')
    return { kind: 'edgeTarget', replace: word };
  let previous = before;
  while (previous >= 0 && /\s/.test(text[previous]!)) previous--;
  if (before < 0 || /[{};\n]/.test(text[before]!) || text[previous] === ']') {
    return { kind: 'statement', replace: word };
  }
  return undefined;
}

/** The place of a cursor inside an attribute's value. */
function valuePlace(text: string, attribute: IndexedAttribute, offset: number): Place {
  const value = attribute.value!;
  if (!value.quoted) {
    return { kind: 'value', key: attribute.canonicalKey, owner: attribute.owner, replace: value };
  }
  // In a string: replace the word before the cursor (a condition is completed a word at a time).
  const opening = text.lastIndexOf('"', offset - 1);
  const inString = text.slice(opening + 1, offset);
  const word = wordBefore(text, offset);
  const start = Math.max(word.start, opening + 1);
  const closing = text.indexOf('"', offset);
  const wholeValue = !/[\s&|=!]/.test(text.slice(opening + 1, closing === -1 ? offset : closing));
  return {
    kind: 'value',
    key: attribute.canonicalKey,
    owner: attribute.owner,
    replace: wholeValue && closing !== -1 ? { start: opening + 1, end: closing } : { start, end: offset },
    inString,
  };
}

/** The attribute whose key starts last before `offset` (and after `from`, when given). */
function lastAttributeBefore(
  index: PipelineIndex,
  offset: number,
  from?: number,
): IndexedAttribute | undefined {
  const attributes = index.attributes;
  let low = 0;
  let high = attributes.length - 1;
  let found: IndexedAttribute | undefined;
  while (low <= high) {
    const middle = (low + high) >> 1;
    if (attributes[middle]!.keyRange.start < offset) {
      found = attributes[middle];
      low = middle + 1;
    } else {
      high = middle - 1;
    }
  }
  if (found === undefined || (from !== undefined && found.keyRange.start < from)) return undefined;
  return found;
}

/** The identifier characters (and dots) just before `offset`. */
function wordBefore(text: string, offset: number): TextRange {
  let start = offset;
  while (start > 0 && /[A-Za-z0-9_.]/.test(text[start - 1]!)) start--;
  return { start, end: offset };
}

function sameOwner(left: AttributeOwner, right: AttributeOwner): boolean {
  if (left.kind !== right.kind) return false;
  if (left.kind === 'node' && right.kind === 'node') return left.id === right.id;
  return left === right;
}

function quoteKey(key: string): string {
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(key) ? key : `"${key}"`;
}

function quoteValue(value: string): string {
  return /^(?:[A-Za-z_][A-Za-z0-9_]*|-?[0-9]+)$/.test(value)
    ? value
    : `"${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}
