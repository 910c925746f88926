/**
 * Masking the checkpoint written after every node (DESIGN.md "Secrets", "Checkpoint"), at the cost of what changed
 * since the previous one.
 */

import type { Outcome } from './outcome.js';
import { isSecretKey, REDACTED, type SecretMasker } from './redact-secrets.js';
import type { Checkpoint } from './run-store.js';

/**
 * Creates a function returning what `masker.mask(checkpoint)` returns (the same checkpoint when nothing was
 * masked), faster on a run's successive checkpoints: the two sliding windows that make up most of a checkpoint,
 * `completed_nodes` (node ids) and `recent_stages` (the same record objects from one checkpoint to the next), are
 * masked once per record (the masker remembers short text such as node ids), and so are the outcomes of
 * `node_outcomes`; a masked record keeps its identity across checkpoints (so the file store's serializer, which
 * remembers records by identity, keeps working). Records and outcomes must not be changed once written (they are
 * `readonly`; the serializer relies on it too). Internal to the engine.
 */
export function createCheckpointMasker(masker: SecretMasker): (checkpoint: Checkpoint) => Checkpoint {
  const records = new WeakMap<object, unknown>();
  /** A record or outcome masked once (they are not changed once written), anything else every time. */
  const maskRecord = (record: unknown): unknown => {
    if (typeof record !== 'object' || record === null) return masker.mask(record);
    let masked = records.get(record);
    if (masked === undefined) {
      masked = masker.mask(record);
      records.set(record, masked);
    }
    return masked;
  };
  const maskOutcomes = (outcomes: Readonly<Record<string, Outcome>>): Readonly<Record<string, Outcome>> => {
    let copy: Record<string, Outcome> | undefined;
    for (const id in outcomes) {
      if (!Object.hasOwn(outcomes, id)) continue;
      const outcome = outcomes[id]!;
      const next = maskRecord(outcome) as Outcome;
      if (next !== outcome) {
        // Prototype-less, like the engine's node dictionaries: a node may be named `__proto__`.
        copy ??= Object.assign(Object.create(null) as Record<string, Outcome>, outcomes);
        copy[id] = next;
      }
    }
    return copy ?? outcomes;
  };
  const maskList = <TItem>(items: readonly TItem[], maskItem: (item: TItem) => TItem): readonly TItem[] => {
    let copy: TItem[] | undefined;
    for (let index = 0; index < items.length; index++) {
      const item = items[index]!;
      const next = maskItem(item);
      if (next !== item) {
        copy ??= items.slice();
        copy[index] = next;
      }
    }
    return copy ?? items;
  };

  return (checkpoint) => {
    let result: Record<string, unknown> | undefined;
    for (const key in checkpoint) {
      if (!Object.hasOwn(checkpoint, key)) continue;
      const value: unknown = (checkpoint as unknown as Record<string, unknown>)[key];
      let next: unknown;
      if (typeof value === 'string') next = isSecretKey(key) ? REDACTED : masker.maskText(value);
      else if (key === 'completed_nodes' && Array.isArray(value))
        next = maskList(value as readonly unknown[], (id) =>
          typeof id === 'string' ? masker.maskText(id) : masker.mask(id),
        );
      else if (key === 'recent_stages' && Array.isArray(value))
        next = maskList(value as readonly unknown[], maskRecord);
      else if (key === 'node_outcomes' && typeof value === 'object' && value !== null)
        next = maskOutcomes(value as Readonly<Record<string, Outcome>>);
      else next = masker.mask(value);
      if (next !== value) {
        result ??= { ...checkpoint };
        result[key] = next;
      }
    }
    return (result ?? checkpoint) as Checkpoint;
  };
}
