/**
 * Masking the checkpoint written after every node, and the manifest (DESIGN.md "Secrets", "Checkpoint"): the data a
 * handler or a user put in is masked, the run's structure is not.
 *
 * Node ids, run ids and run directories are structure: they come from the graph and the engine, resume looks them
 * up, and a secret that happens to equal a node id (`API_KEY=test` and a node `test`) must not turn the checkpoint's
 * `current_node` into `[REDACTED]` and break the resume. So `current_node`, `next_node`, `completed_nodes`,
 * `fallbacks_taken`, the node ids of `recent_stages`, the keys of every per-node map, `run_id`, `restarted_to`,
 * `origin` and `workspace` (commit ids and worktree paths: README "Workspaces") are written as they are, and so are the fields the engine fills from a clock, a hash, enums and counters
 * (`timestamp`, `graph_sha256`, `visited_nodes`, `state`, `last_fidelity`, the numbers). Everything else — the
 * context, the logs, outcomes (notes, failure reasons, context updates, labels), stage records' notes and failure
 * reasons, failure streak reasons, the failure reason and any field this file does not know — goes through
 * `masker.mask`.
 *
 * Events and `status.json` follow the same rule ({@link maskEvent}, {@link maskStageStatus}): their node ids, stage
 * paths, branch ids, question ids, run directories, workspace commits and the workspace of `pipeline.started` are
 * written as they are, so that `inspect`, `render --run` and
 * the server still find the stage a secret-looking node id names.
 */

import type { Outcome } from './outcome.js';
import { isSecretKey, REDACTED, type SecretMasker } from './redact-secrets.js';
import type { Checkpoint, RunManifest, StageRecord, StageStatusFile } from './run-store.js';

/**
 * The checkpoint fields that hold data (see the file's header), masked on every write; every other field of
 * {@link Checkpoint} is structure and written as it is. A test holds this list against the checkpoint's schema, so a
 * new field must be placed on one side or the other. Internal to the engine.
 */
export const CHECKPOINT_DATA_FIELDS = [
  'failure_reason',
  'node_outcomes',
  'failure_streaks',
  'recent_stages',
  'context',
  'logs',
] as const satisfies readonly (keyof Checkpoint)[];

/** The fields of an outcome that are routing structure, not text: an outcome with nothing else is not looked up. */
const OUTCOME_STRUCTURE = new Set(['status', 'suggestedNextIds', 'retryable', 'continueAt']);

/** Manifest fields written as they are: ids, hashes, versions and the run directories the engine chose. */
const MANIFEST_STRUCTURE = new Set([
  'version',
  'run_id',
  'source_sha256',
  'started_at',
  'engine_version',
  'restarted_to',
  'restarted_from',
  'node_ids',
  'forked_from',
]);

/**
 * Creates a function returning `checkpoint` with its data masked by `masker` (the same checkpoint when nothing was
 * masked; the caller's objects are never changed). Stage records and outcomes are masked once each and keep their
 * masked identity across a run's successive checkpoints (the file store's serializer remembers records by
 * identity), so each checkpoint costs what changed since the previous one. Records and outcomes must not be changed
 * once written (they are `readonly`; the serializer relies on it too). Internal to the engine.
 */
export function createCheckpointMasker(masker: SecretMasker): (checkpoint: Checkpoint) => Checkpoint {
  const masked = new WeakMap<object, unknown>();
  /** An object masked once (it is not changed once written); anything else every time. */
  const maskOnce = <TValue>(value: TValue, maskValue: (value: TValue) => TValue): TValue => {
    if (typeof value !== 'object' || value === null) return masker.mask(value);
    let result = masked.get(value) as TValue | undefined;
    if (result === undefined) {
      result = maskValue(value);
      masked.set(value, result);
    }
    return result;
  };
  const maskOutcome = (outcome: Outcome): Outcome => {
    // Most outcomes are a bare status: nothing to look up.
    for (const key in outcome) if (!OUTCOME_STRUCTURE.has(key)) return maskOnce(outcome, maskOutcomeData);
    return outcome;
  };
  const maskOutcomeData = (outcome: Outcome): Outcome => {
    const { status: _status, suggestedNextIds: _suggested, continueAt: _continue, ...data } = outcome;
    const maskedData = masker.mask(data);
    return maskedData === data ? outcome : { ...outcome, ...maskedData };
  };
  const maskRecord = (record: StageRecord): StageRecord =>
    // Most records hold no text but their node id and status: nothing to look up.
    record.notes === undefined && record.failure_reason === undefined
      ? record
      : maskOnce(record, maskRecordData);
  const maskRecordData = (record: StageRecord): StageRecord => {
    const { node: _node, status: _status, ...data } = record;
    const maskedData = masker.mask(data);
    return maskedData === data ? record : { ...record, ...maskedData };
  };

  return (checkpoint) => {
    let result: Record<string, unknown> | undefined;
    for (const key of CHECKPOINT_DATA_FIELDS) {
      const value: unknown = checkpoint[key];
      if (value === undefined) continue;
      let next: unknown;
      if (key === 'recent_stages') next = mapChanged(value as readonly StageRecord[], maskRecord);
      else if (key === 'node_outcomes')
        next = mapValuesChanged(value as Readonly<Record<string, Outcome>>, maskOutcome);
      else if (key === 'failure_streaks')
        next = mapValuesChanged(value as Checkpoint['failure_streaks'], (streak) => masker.mask(streak));
      else next = masker.mask(value);
      if (next !== value) {
        result ??= { ...checkpoint };
        result[key] = next;
      }
    }
    return (result ?? checkpoint) as Checkpoint;
  };
}

/** `manifest` with its data masked by `masker` and its structure (see the file's header) as it is. Internal to the engine. */
export function maskManifest(manifest: RunManifest, masker: SecretMasker): RunManifest {
  return maskFields(manifest, masker, undefined, MANIFEST_STRUCTURE);
}

/** `items` with `mapItem` applied, or `items` itself when no item changed. */
function mapChanged<TItem>(items: readonly TItem[], mapItem: (item: TItem) => TItem): readonly TItem[] {
  let copy: TItem[] | undefined;
  for (let index = 0; index < items.length; index++) {
    const item = items[index]!;
    const next = mapItem(item);
    if (next !== item) {
      copy ??= items.slice();
      copy[index] = next;
    }
  }
  return copy ?? items;
}

/**
 * `values` with `mapValue` applied to each value (keys are node ids, kept), or `values` itself when no value changed.
 * A copy is prototype-less, like the engine's node dictionaries: a node may be named `__proto__`.
 */
function mapValuesChanged<TValue>(
  values: Readonly<Record<string, TValue>>,
  mapValue: (value: TValue) => TValue,
): Readonly<Record<string, TValue>> {
  let copy: Record<string, TValue> | undefined;
  for (const id of Object.keys(values)) {
    const value = values[id]!;
    const next = mapValue(value);
    if (next !== value) {
      copy ??= Object.assign(Object.create(null) as Record<string, TValue>, values);
      copy[id] = next;
    }
  }
  return copy ?? values;
}

/** Event fields that are structure: the event type, node ids, stage paths, branch ids and run directories. */
const EVENT_STRUCTURE = new Set([
  'type',
  'nodeId',
  'startNodeId',
  'targetNodeId',
  'nextNodeId',
  'stage',
  'branch',
  'branchPath',
  'logsRoot',
  'newLogsRoot',
  'handlerType',
  'commit',
  'workspace',
]);

/** Question fields that are structure: the id answers are keyed by (node, visit, attempt) and the stage path. */
const QUESTION_STRUCTURE = new Set(['id', 'stage']);

/** `status.json` fields that are structure: the outcome word, the node ids it suggests, the retry flag and the commit. */
const STATUS_STRUCTURE = new Set(['outcome', 'suggested_next_ids', 'retryable', 'commit']);

/**
 * `event` with its data masked by `masker` (see the file's header): everything but its structure — and, in a
 * `question`, everything but its `id` and `stage` — goes through `masker.mask`, a string under a secret-named key is
 * replaced whole. The same event when nothing was masked. Internal to the engine.
 */
export function maskEvent<TEvent extends object>(event: TEvent, masker: SecretMasker): TEvent {
  return maskFields(
    event,
    masker,
    (key, value) =>
      key === 'question' && typeof value === 'object' && value !== null && !Array.isArray(value)
        ? maskFields(value, masker, undefined, QUESTION_STRUCTURE)
        : undefined,
    EVENT_STRUCTURE,
  );
}

/** `status` with its data masked by `masker` (see the file's header). Internal to the engine. */
export function maskStageStatus(status: StageStatusFile, masker: SecretMasker): StageStatusFile {
  return maskFields(status, masker, undefined, STATUS_STRUCTURE);
}

/**
 * `value` with every own field but those in `structure` masked (`special` may mask an object field its own way by
 * returning a value); the same object when nothing changed.
 */
function maskFields<TValue extends object>(
  value: TValue,
  masker: SecretMasker,
  special: ((key: string, field: unknown) => unknown) | undefined,
  structure: ReadonlySet<string>,
): TValue {
  let result: Record<string, unknown> | undefined;
  for (const key in value) {
    if (!Object.hasOwn(value, key) || structure.has(key)) continue;
    const field: unknown = (value as Record<string, unknown>)[key];
    let next: unknown;
    // Most fields are strings and numbers: text is masked without the walk of `mask`, numbers and booleans hold none.
    if (typeof field === 'string') next = isSecretKey(key) ? REDACTED : masker.maskText(field);
    else if (typeof field !== 'object' || field === null) continue;
    else next = special?.(key, field) ?? masker.mask(field);
    if (next !== field) {
      result ??= { ...(value as Record<string, unknown>) };
      result[key] = next;
    }
  }
  return (result ?? value) as TValue;
}
