/**
 * The JSON text of `checkpoint.json`, written after every node (DESIGN.md "Checkpoint").
 */
import type { Checkpoint } from './run-store.js';

/** Node ids whose JSON text is remembered; past this the memo starts over (graphs are rarely that big). */
const MAX_REMEMBERED_IDS = 50_000;

/**
 * Creates a function returning exactly `JSON.stringify(checkpoint)`, faster on a run's successive checkpoints: the
 * two sliding windows that make up most of the text, `completed_nodes` (node ids) and `recent_stages` (the same
 * record objects from one checkpoint to the next), are assembled from the JSON text of their entries, which is
 * computed once per node id and once per record. Records must not be changed once written (they are `readonly`).
 * Internal to the engine.
 */
export function createCheckpointSerializer(): (checkpoint: Checkpoint) => string {
  const idTexts = new Map<string, string>();
  const recordTexts = new WeakMap<object, string>();

  const idText = (id: unknown): string => {
    if (typeof id !== 'string') return JSON.stringify(id) ?? 'null';
    let text = idTexts.get(id);
    if (text === undefined) {
      if (idTexts.size >= MAX_REMEMBERED_IDS) idTexts.clear();
      text = JSON.stringify(id);
      idTexts.set(id, text);
    }
    return text;
  };
  const recordText = (record: unknown): string => {
    if (typeof record !== 'object' || record === null) return JSON.stringify(record) ?? 'null';
    let text = recordTexts.get(record);
    if (text === undefined) {
      text = JSON.stringify(record) ?? 'null';
      recordTexts.set(record, text);
    }
    return text;
  };

  const keyTexts = new Map<string, string>();
  const keyText = (key: string): string => {
    let text = keyTexts.get(key);
    if (text === undefined) {
      text = `${JSON.stringify(key)}:`;
      keyTexts.set(key, text);
    }
    return text;
  };
  const listText = (items: readonly unknown[], itemText: (item: unknown) => string): string => {
    let text = '[';
    for (let index = 0; index < items.length; index++)
      text += (index === 0 ? '' : ',') + itemText(items[index]);
    return `${text}]`;
  };

  return (checkpoint) => {
    let out = '{';
    for (const key in checkpoint) {
      if (!Object.hasOwn(checkpoint, key)) continue;
      const value: unknown = (checkpoint as unknown as Record<string, unknown>)[key];
      let text: string | undefined;
      if (key === 'completed_nodes' && Array.isArray(value)) text = listText(value, idText);
      else if (key === 'recent_stages' && Array.isArray(value)) text = listText(value, recordText);
      else text = JSON.stringify(value);
      // Like JSON.stringify, leave out properties whose value has no JSON form (undefined).
      if (text !== undefined) out += (out.length === 1 ? '' : ',') + keyText(key) + text;
    }
    return `${out}}`;
  };
}
