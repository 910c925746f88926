/**
 * The zod schema of the checkpoint snapshot (DESIGN.md "Checkpoint") and the one function that reads a stored
 * checkpoint back: every store calls {@link parseCheckpoint} so that a malformed snapshot is refused with a message
 * naming the field, never half-used.
 */
import { z } from 'zod';
import { CheckpointCorruptError } from './errors/checkpoint-corrupt-error.js';
import { CHECKPOINT_VERSION, type Checkpoint } from './run-store.js';

const outcomeSchema = z.object({
  status: z.string(),
  preferredLabel: z.string().optional(),
  suggestedNextIds: z.array(z.string()).optional(),
  contextUpdates: z.record(z.string(), z.json()).optional(),
  notes: z.string().optional(),
  failureReason: z.string().optional(),
  retryable: z.boolean().optional(),
  continueAt: z.string().optional(),
});

const count = z.number().int().nonnegative();

/**
 * The schema of {@link Checkpoint} (version {@link CHECKPOINT_VERSION}). Unknown fields are allowed (and kept), so
 * that a later minor addition does not make a checkpoint unreadable.
 */
export const checkpointSchema = z.object({
  version: z.literal(CHECKPOINT_VERSION),
  timestamp: z.string(),
  run_id: z.string(),
  graph_sha256: z.string(),
  state: z.enum(['running', 'success', 'fail', 'cancelled', 'restarted']),
  restarted_to: z.string().optional(),
  current_node: z.string(),
  next_node: z.string().nullable(),
  next_edge_index: count.nullable(),
  completed_nodes: z.array(z.string()),
  step_count: count,
  node_retries: z.record(z.string(), count),
  visited_nodes: z.string().regex(/^(\d+(-\d+)?(,\d+(-\d+)?)*)?$/, 'expected positions like "0-4,7"'),
  node_visits: z.record(z.string(), count),
  node_outcomes: z.record(z.string(), outcomeSchema),
  gate_retries: count,
  fallbacks_taken: z.array(z.string()),
  failure_streaks: z.record(z.string(), z.object({ reason: z.string(), count })),
  last_fidelity: z.string().nullable(),
  recent_stages: z.array(
    z.object({
      node: z.string(),
      status: z.string(),
      notes: z.string().optional(),
      failure_reason: z.string().optional(),
    }),
  ),
  context: z.record(z.string(), z.json()),
  logs: z.array(z.string()),
  failure_reason: z.string().optional(),
  last_seq: count,
  origin: z
    .object({
      run_id: z.string(),
      logs_root: z.string(),
      checkpoint: count,
      node: z.string(),
      visit: count,
    })
    .optional(),
  workspace: z
    .object({ mode: z.string(), run_id: z.string(), commit: z.string() })
    .catchall(z.json())
    .optional(),
}) satisfies z.ZodType<Checkpoint>;

/**
 * Checks a parsed JSON value against {@link checkpointSchema} and returns it as a {@link Checkpoint}. The value
 * itself is returned (not zod's copy), so node ids such as `__proto__` stay own keys.
 *
 * @param value - the parsed JSON.
 * @param source - where it came from (a file path or a store key), for the error message.
 * @throws {CheckpointCorruptError} naming the first offending field, e.g.
 *   `field "node_outcomes": expected record, received null`.
 */
export function parseCheckpoint(value: unknown, source: string): Checkpoint {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new CheckpointCorruptError({
      path: source,
      reason: `expected a JSON object, got ${describe(value)}`,
    });
  }
  const version = (value as { version?: unknown }).version;
  if (version !== CHECKPOINT_VERSION) {
    throw new CheckpointCorruptError({
      path: source,
      reason: `field "version": unsupported checkpoint version ${JSON.stringify(version) ?? 'undefined'} (expected ${CHECKPOINT_VERSION})`,
    });
  }
  const result = checkpointSchema.safeParse(value);
  if (!result.success) {
    const issue = result.error.issues[0]!;
    const field = issue.path.map(String).join('.');
    throw new CheckpointCorruptError({
      path: source,
      reason: `field "${field}": ${issue.message.replace(/^Invalid input: /, '')}${field === '' ? '' : ` (got ${describe(valueAt(value, issue.path))})`}`,
    });
  }
  return value as Checkpoint;
}

function valueAt(value: unknown, path: readonly PropertyKey[]): unknown {
  let current = value;
  for (const key of path) {
    if (typeof current !== 'object' || current === null || !Object.hasOwn(current, key)) return undefined;
    current = (current as Record<PropertyKey, unknown>)[key];
  }
  return current;
}

function describe(value: unknown): string {
  if (value === undefined) return 'nothing';
  const text = JSON.stringify(value);
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}
