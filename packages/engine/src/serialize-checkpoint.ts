/**
 * The JSON text of `checkpoint.json` and of its line in `checkpoints.jsonl`, written after every node
 * (docs/architecture.md "Checkpoint").
 *
 * Most of a checkpoint is its two sliding windows, `completed_nodes` (the last 100 node ids) and `recent_stages`
 * (the last 50 stage records), which move by one entry per node. A history line stores them as a delta against
 * the line before it, under {@link WINDOW_DELTA_KEY}: `"window_delta":{"completed_nodes":[99,["deploy"]]}` means
 * "the last 99 entries of the previous line's list, then `deploy`". A line is about a third of the checkpoint, so
 * the history of a long run stays small and cheap to append. The first line a writer appends, and any line whose
 * windows did not simply move, holds the lists whole.
 */
import { CheckpointCorruptError } from './errors/checkpoint-corrupt-error.js';
import type { Checkpoint } from './run-store.js';

/** Node ids whose JSON text is remembered; past this the memo starts over (graphs are rarely that big). */
const MAX_REMEMBERED_IDS = 50_000;

/** The key of a history line under which its windows are stored as deltas (see the file's header). */
export const WINDOW_DELTA_KEY = 'window_delta';

/** The sliding windows of a checkpoint, stored as deltas in the history. */
const WINDOWS = ['completed_nodes', 'recent_stages'] as const;

/** A checkpoint serialised by {@link CheckpointSerializer.serialize}. */
export interface SerializedCheckpoint {
  /** Exactly `JSON.stringify(checkpoint)`: the text of `checkpoint.json`. */
  readonly text: string;
  /** The checkpoint's line of the history (without the newline): its windows as deltas when they moved. */
  readonly historyLine: string;
}

/** Serialises a run's successive checkpoints. Internal to the engine. */
export interface CheckpointSerializer {
  /** The texts of `checkpoint`; its history line refers to the checkpoint of the previous call. */
  serialize(checkpoint: Checkpoint): SerializedCheckpoint;
  /** Forgets the previous checkpoint (its history line was not written): the next history line is whole. */
  reset(): void;
}

/**
 * Creates a serializer of a run's successive checkpoints, faster than `JSON.stringify` on them: the two windows are
 * assembled from the JSON text of their entries, which is computed once per node id and once per record. Records
 * must not be changed once written (they are `readonly`). Internal to the engine.
 */
export function createCheckpointSerializer(): CheckpointSerializer {
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
  const listText = (items: readonly unknown[], itemText: (item: unknown) => string): WindowText => {
    let inner = '';
    const lengths: number[] = [];
    for (let index = 0; index < items.length; index++) {
      const text = itemText(items[index]);
      inner += (index === 0 ? '' : ',') + text;
      lengths.push(text.length);
    }
    return { items, text: `[${inner}]`, lengths, added: inner };
  };
  /**
   * The text of a window that kept its last `keep` entries of `before` and added the rest: the kept part is cut out
   * of the previous text rather than assembled again.
   */
  const movedListText = (
    before: WindowText,
    items: readonly unknown[],
    keep: number,
    itemText: (item: unknown) => string,
  ): WindowText => {
    const dropped = before.items.length - keep;
    let skip = 1;
    for (let index = 0; index < dropped; index++) skip += before.lengths[index]! + 1;
    const kept = keep === 0 ? '' : before.text.slice(skip, before.text.length - 1);
    const lengths = before.lengths.slice(dropped);
    let added = '';
    for (let index = keep; index < items.length; index++) {
      const text = itemText(items[index]);
      added += (index === keep ? '' : ',') + text;
      lengths.push(text.length);
    }
    return { items, text: `[${kept}${kept !== '' && added !== '' ? ',' : ''}${added}]`, lengths, added };
  };

  /** The previous checkpoint's step count and the texts of its windows. */
  let previous:
    | { readonly stepCount: number; readonly windows: readonly (WindowText | undefined)[] }
    | undefined;

  return {
    serialize(checkpoint) {
      const appended = previous === undefined ? -1 : checkpoint.step_count - previous.stepCount;
      const windows: (WindowText | undefined)[] = [undefined, undefined];
      let out = '{';
      let line = '{';
      let delta = '';
      for (const key in checkpoint) {
        if (!Object.hasOwn(checkpoint, key)) continue;
        const value: unknown = (checkpoint as unknown as Record<string, unknown>)[key];
        const window = key === WINDOWS[0] ? 0 : key === WINDOWS[1] ? 1 : -1;
        const keyPart = keyText(key);
        let text: string | undefined;
        let keep: number | undefined;
        if (window >= 0 && Array.isArray(value)) {
          const itemText = window === 0 ? idText : recordText;
          const before = previous?.windows[window];
          keep = before === undefined ? undefined : keptEntries(before.items, value, appended);
          const list =
            before === undefined || keep === undefined
              ? listText(value, itemText)
              : movedListText(before, value, keep, itemText);
          windows[window] = list;
          text = list.text;
          if (keep !== undefined) delta += `${delta === '' ? '' : ','}${keyPart}[${keep},[${list.added}]]`;
        } else text = JSON.stringify(value);
        // Like JSON.stringify, leave out properties whose value has no JSON form (undefined).
        if (text === undefined) continue;
        out += (out.length === 1 ? '' : ',') + keyPart + text;
        if (keep === undefined) line += (line.length === 1 ? '' : ',') + keyPart + text;
      }
      if (delta !== '') line += `${line.length === 1 ? '' : ','}${keyText(WINDOW_DELTA_KEY)}{${delta}}`;
      previous = { stepCount: checkpoint.step_count, windows };
      return { text: `${out}}`, historyLine: `${line}}` };
    },
    reset() {
      previous = undefined;
    },
  };
}

/** The JSON text of a window list, the entries it holds and the length of each entry's text. */
interface WindowText {
  readonly items: readonly unknown[];
  readonly text: string;
  readonly lengths: readonly number[];
  /** The texts of the entries added since the previous checkpoint (all of them for a new list), comma-separated. */
  readonly added: string;
}

/**
 * How many entries of `next` are the last entries of `previous` when `next` is `previous` moved on by `appended`
 * entries (the node executions since), or undefined when it is not (or there is no previous list).
 */
function keptEntries(
  previous: readonly unknown[],
  next: readonly unknown[],
  appended: number,
): number | undefined {
  if (appended < 0) return undefined;
  const keep = next.length - appended;
  if (keep < 0 || keep > previous.length) return undefined;
  const offset = previous.length - keep;
  for (let index = 0; index < keep; index++) if (next[index] !== previous[offset + index]) return undefined;
  return keep;
}

/**
 * The checkpoint data of a history line (parsed JSON) with its windows restored from `previous`, the checkpoint of
 * the line before it; a whole line is returned as it is. Validate the result with `parseCheckpoint`.
 *
 * @throws {CheckpointCorruptError} naming `where` when the line has deltas but no line before it, or a malformed
 * delta.
 */
export function expandHistoryLine(data: unknown, previous: Checkpoint | undefined, where: string): unknown {
  if (typeof data !== 'object' || data === null || !Object.hasOwn(data, WINDOW_DELTA_KEY)) return data;
  const { [WINDOW_DELTA_KEY]: delta, ...rest } = data as Record<string, unknown>;
  if (previous === undefined)
    throw new CheckpointCorruptError({
      path: where,
      reason: 'the line continues a checkpoint that is missing (the line before it is gone or unreadable)',
    });
  if (typeof delta !== 'object' || delta === null)
    throw new CheckpointCorruptError({ path: where, reason: `field "${WINDOW_DELTA_KEY}" is not an object` });
  for (const [key, value] of Object.entries(delta)) {
    const before: unknown = (previous as unknown as Record<string, unknown>)[key];
    const [keep, added] = Array.isArray(value) ? (value as unknown[]) : [];
    if (
      !WINDOWS.includes(key as (typeof WINDOWS)[number]) ||
      !Array.isArray(before) ||
      !Number.isInteger(keep) ||
      (keep as number) < 0 ||
      (keep as number) > before.length ||
      !Array.isArray(added)
    )
      throw new CheckpointCorruptError({
        path: where,
        reason: `field "${WINDOW_DELTA_KEY}.${key}" is not [kept entries, added entries] of a list of the line before`,
      });
    rest[key] = [...before.slice(before.length - (keep as number)), ...added];
  }
  return rest;
}
