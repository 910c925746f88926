/**
 * The `parallel.results` context value (DESIGN.md "Parallel results"): one entry per branch in edge order.
 */
import type { JsonValue } from '@attractor/engine';

/** One branch in `parallel.results`. */
export interface ParallelBranchResult {
  /** The branch id (the fan-out edge's target). */
  readonly branch: string;
  /**
   * The branch's status: its last node's status when it ran to the join (`success`, `partial_success`, a custom
   * word), `fail` when it failed or timed out, `cancelled` when the join cancelled it.
   */
  readonly status: string;
  readonly notes: string;
  readonly failure_reason: string;
  /** `last_response` of the branch context ('' when no stage set one): the first 200 characters. */
  readonly last_response: string;
  /**
   * The branch's full output: its last stage's `response.md` (LLM) or `stdout.txt` (tool); '' when it wrote
   * neither, or when the output is larger than {@link BRANCH_OUTPUT_INLINE_MAX_CHARS} (see `output_artifact`).
   */
  readonly output: string;
  /** The artifact id of a full output too large to keep in the context (`runtime.artifacts.retrieve(id)`). */
  readonly output_artifact?: string;
  /** Context keys the branch added or changed (engine bookkeeping and `parallel.*` keys left out). */
  readonly context_updates: Readonly<Record<string, JsonValue>>;
  /** The branch's last workspace commit, when the run has a workspace (README "Workspaces"): what the fan-in merges. */
  readonly commit?: string;
  /** The branch's git branch (`attractor/<run-id>@<stage>/<branch>`), when the run has a workspace. */
  readonly ref?: string;
}

/** Branch outputs up to this many characters stay in `parallel.results`; larger ones go to the artifact store. */
export const BRANCH_OUTPUT_INLINE_MAX_CHARS = 100_000;

/** Reads `parallel.results` from a context value; undefined when it is missing or not an array of results. */
export function readParallelResults(value: JsonValue | undefined): ParallelBranchResult[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const results: ParallelBranchResult[] = [];
  for (const item of value) {
    if (typeof item !== 'object' || item === null || Array.isArray(item)) return undefined;
    const record = item as Record<string, JsonValue>;
    if (typeof record.branch !== 'string' || typeof record.status !== 'string') return undefined;
    const updates = record.context_updates;
    results.push({
      branch: record.branch,
      status: record.status,
      notes: typeof record.notes === 'string' ? record.notes : '',
      failure_reason: typeof record.failure_reason === 'string' ? record.failure_reason : '',
      last_response: typeof record.last_response === 'string' ? record.last_response : '',
      output: typeof record.output === 'string' ? record.output : '',
      ...(typeof record.output_artifact === 'string' ? { output_artifact: record.output_artifact } : {}),
      ...(typeof record.commit === 'string' ? { commit: record.commit } : {}),
      ...(typeof record.ref === 'string' ? { ref: record.ref } : {}),
      context_updates:
        typeof updates === 'object' && updates !== null && !Array.isArray(updates)
          ? (updates as Readonly<Record<string, JsonValue>>)
          : {},
    });
  }
  return results;
}
