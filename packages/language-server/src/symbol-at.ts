import type {
  ClassOccurrence,
  FileReference,
  IndexedAttribute,
  NodeOccurrence,
  PipelineIndex,
  TextRange,
  VariableReference,
} from './pipeline-index.js';

/** What is written at a position of a pipeline. */
export type SymbolAt =
  | { readonly kind: 'node'; readonly occurrence: NodeOccurrence }
  | { readonly kind: 'class'; readonly occurrence: ClassOccurrence }
  | { readonly kind: 'variable'; readonly reference: VariableReference }
  | { readonly kind: 'file'; readonly reference: FileReference }
  | { readonly kind: 'key'; readonly attribute: IndexedAttribute }
  | { readonly kind: 'value'; readonly attribute: IndexedAttribute };

/**
 * The most specific thing at `offset` (a position just after a name counts as on it): a node id (in a statement, an
 * edge, or a value that names a node), a class, a `$goal` / `$context.<key>`, a file reference, an attribute key, an
 * attribute value. `undefined` between them. A node id that names no node of the file (a `human.default_choice` that
 * is a label) is not a node.
 */
export function symbolAt(index: PipelineIndex, offset: number): SymbolAt | undefined {
  const occurrence = containing(index.occurrences, offset);
  if (occurrence !== undefined && index.nodes.has(occurrence.id)) return { kind: 'node', occurrence };
  const classOccurrence = containing(index.classes, offset);
  if (classOccurrence !== undefined) return { kind: 'class', occurrence: classOccurrence };
  const variable = containing(index.variables, offset);
  if (variable !== undefined) return { kind: 'variable', reference: variable };
  const file = containing(index.files, offset);
  if (file !== undefined) return { kind: 'file', reference: file };
  const attribute = attributeAt(index, offset);
  if (attribute === undefined) return undefined;
  return within(attribute.keyRange, offset) ? { kind: 'key', attribute } : { kind: 'value', attribute };
}

/** The attribute whose key or value holds `offset`. */
export function attributeAt(index: PipelineIndex, offset: number): IndexedAttribute | undefined {
  const attributes = index.attributes;
  let low = 0;
  let high = attributes.length - 1;
  // The last attribute whose key starts at or before the offset.
  while (low < high) {
    const middle = (low + high + 1) >> 1;
    if (attributes[middle]!.keyRange.start <= offset) low = middle;
    else high = middle - 1;
  }
  const attribute = attributes[low];
  if (attribute === undefined || attribute.keyRange.start > offset) return undefined;
  if (within(attribute.keyRange, offset)) return attribute;
  return attribute.value !== undefined && within(attribute.value, offset) ? attribute : undefined;
}

/** The item of `items` (sorted by start, not overlapping) whose range holds `offset`. */
export function containing<TItem extends TextRange>(
  items: readonly TItem[],
  offset: number,
): TItem | undefined {
  let low = 0;
  let high = items.length - 1;
  while (low <= high) {
    const middle = (low + high) >> 1;
    const item = items[middle]!;
    if (item.end < offset) low = middle + 1;
    else if (item.start > offset) high = middle - 1;
    else return item;
  }
  return undefined;
}

/** Whether `offset` is inside `range` or just after it. */
export function within(range: TextRange, offset: number): boolean {
  return range.start <= offset && offset <= range.end;
}
