/**
 * `GET /pipelines/{id}/checkpoints`: a page of a run's checkpoint history (docs/architecture.md "Checkpoint": every
 * checkpoint is kept, so a run can be forked from any of them), each entry with the context at that point.
 */
import type { Checkpoint, JsonValue, SecretMasker } from '@attractor/engine';
import { z } from 'zod';

/** Checkpoints per page when `limit` is not given. */
export const DEFAULT_CHECKPOINT_PAGE_SIZE = 50;
/** The largest `limit` accepted. */
export const MAX_CHECKPOINT_PAGE_SIZE = 500;

const count = (name: string) =>
  z
    .string()
    .regex(/^\d{1,9}$/, `${name} must be a whole number`)
    .transform(Number);

/** The query of `GET /pipelines/{id}/checkpoints`: `offset` (default 0) and `limit` (default 50, at most 500). */
export const checkpointHistoryQuerySchema = z.strictObject({
  offset: count('offset').optional(),
  limit: count('limit')
    .refine(
      (limit) => limit >= 1 && limit <= MAX_CHECKPOINT_PAGE_SIZE,
      `limit must be from 1 to ${MAX_CHECKPOINT_PAGE_SIZE}`,
    )
    .optional(),
});

/** One checkpoint of the history, as the API sends it. */
export const checkpointHistoryEntrySchema = z.object({
  /** The checkpoint's position in the history, from 0 (a fork's `origin.checkpoint`). */
  index: z.number().int().nonnegative(),
  /** The node that had just completed; `null` for the checkpoint a run starts with, before any stage. */
  node: z.string().nullable(),
  /** That node's visit, from 1; `null` with `node`. */
  visit: z.number().int().positive().nullable(),
  /** The stage directory of that visit (`/stage?dir=`, `/stage-diff?dir=`); `null` with `node`. */
  dir: z.string().nullable(),
  /** What `POST /pipelines/{id}/fork` takes as `from` to start after this checkpoint; `null` with `node`. */
  at: z.string().nullable(),
  /** When the checkpoint was written (ISO 8601). */
  timestamp: z.string(),
  /** The run's state in it. */
  state: z.string(),
  /** The node the run goes to next. */
  nextNode: z.string().nullable(),
  /** The context at that point, secrets masked. */
  context: z.record(z.string(), z.json()),
});

/** One entry of {@link checkpointHistoryPageSchema} (see {@link checkpointHistoryEntrySchema} for the fields). */
export type CheckpointHistoryEntry = Omit<z.infer<typeof checkpointHistoryEntrySchema>, 'context'> & {
  readonly context: Readonly<Record<string, JsonValue>>;
};

/** The body of `GET /pipelines/{id}/checkpoints`. */
export const checkpointHistoryPageSchema = z.object({
  checkpoints: z.array(checkpointHistoryEntrySchema),
  /** How many checkpoints the history holds. */
  total: z.number().int().nonnegative(),
  offset: z.number().int().nonnegative(),
  limit: z.number().int().positive(),
});

/** A page of {@link checkpointHistoryPageSchema}. */
export type CheckpointHistoryPage = Omit<z.infer<typeof checkpointHistoryPageSchema>, 'checkpoints'> & {
  readonly checkpoints: readonly CheckpointHistoryEntry[];
};

/**
 * The page `[offset, offset + limit)` of a checkpoint history (oldest first), each entry's context masked by
 * `secrets`. A node's latest visit is its stage directory itself, an earlier one `<node>/visits/<visit>`.
 * @param options.history the run's checkpoints, oldest first (`RunStore.readCheckpointHistory`)
 * @param options.offset the first entry. Default: 0.
 * @param options.limit entries at most. Default: {@link DEFAULT_CHECKPOINT_PAGE_SIZE}.
 */
export function pageCheckpointHistory(options: {
  readonly history: readonly Checkpoint[];
  readonly secrets: SecretMasker;
  readonly offset?: number;
  readonly limit?: number;
}): CheckpointHistoryPage {
  const { history, secrets } = options;
  const offset = options.offset ?? 0;
  const limit = options.limit ?? DEFAULT_CHECKPOINT_PAGE_SIZE;
  const latestVisit = new Map<string, number>();
  for (const checkpoint of history) {
    const node = checkpoint.current_node;
    if (node !== '') latestVisit.set(node, Math.max(latestVisit.get(node) ?? 0, visitOf(checkpoint)));
  }
  const checkpoints = history.slice(offset, offset + limit).map((checkpoint, position) => {
    const node = checkpoint.current_node === '' ? null : checkpoint.current_node;
    const visit = node === null ? null : visitOf(checkpoint);
    return {
      index: offset + position,
      node,
      visit,
      dir: node === null ? null : visit === latestVisit.get(node) ? node : `${node}/visits/${visit}`,
      at: node === null ? null : `${node}@${visit}`,
      timestamp: checkpoint.timestamp,
      state: checkpoint.state,
      nextNode: checkpoint.next_node,
      context: secrets.mask(checkpoint.context),
    };
  });
  return { checkpoints, total: history.length, offset, limit };
}

/** The visit of the checkpoint's completed node (visits count from 1). */
function visitOf(checkpoint: Checkpoint): number {
  return checkpoint.node_visits[checkpoint.current_node] ?? 1;
}
