/**
 * Persistence of a run (DESIGN.md "Checkpoint", "Run directory"): the manifest, the checkpoint, the event log
 * and per-stage status files. `createFileRunStore` (file-run-store.ts) writes the spec §5.6 run directory;
 * `createMemoryRunStore` from `@attractor/engine/test` keeps everything in memory.
 */
import type { JsonValue } from './json-value.js';
import type { Outcome, OutcomeStatus } from './outcome.js';
import type { PipelineEvent } from './pipeline-event.js';
import type { AcquireRunLockOptions, RunLock, RunLockHolder } from './run-lock.js';

/**
 * The current checkpoint format version. A checkpoint with another version is refused on resume. Version 2 made the
 * checkpoint the whole state of a resume (`visited_nodes`, no event-log replay).
 */
export const CHECKPOINT_VERSION = 2;

/** `manifest.json`: what ran, from where, and when (DESIGN.md "Run directory"). */
export interface RunManifest {
  readonly version: 1;
  readonly run_id: string;
  readonly graph_name: string;
  readonly goal: string;
  /** The DOT file the graph came from, when known. */
  readonly source_path?: string;
  /** sha256 (hex) of the DOT source, or of a canonical serialisation of the graph when it has no source. */
  readonly source_sha256: string;
  /** ISO-8601. */
  readonly started_at: string;
  /** Version of `@attractor/engine` that created the run. */
  readonly engine_version: string;
  /** The run's working directory. */
  readonly workdir: string;
  /** Set when a `loop_restart` edge continued this run in a sibling directory. */
  readonly restarted_to?: string;
  /** Set on the sibling directory of a `loop_restart`: the directory it continues. */
  readonly restarted_from?: string;
  /**
   * The graph's node ids in declaration order: the positions `visited_nodes` of the checkpoints refer to (so that a
   * fork with an edited graph can still read them).
   */
  readonly node_ids?: readonly string[];
  /** The initial context values the run was started with (a run interrupted before its first checkpoint restarts with them). */
  readonly initial_context?: Readonly<Record<string, JsonValue>>;
  /** Set on a forked run: the run and checkpoint it started from (`forkRun`). */
  readonly forked_from?: CheckpointOrigin;
}

/** Where a forked run came from: the source run and the checkpoint it started at. */
export interface CheckpointOrigin {
  /** The source run's id. */
  readonly run_id: string;
  /** The source run directory (or store key). */
  readonly logs_root: string;
  /** The position of the source checkpoint in the source run's checkpoint history, from 0. */
  readonly checkpoint: number;
  /** The node that had just completed in that checkpoint. */
  readonly node: string;
  /** Its visit number. */
  readonly visit: number;
}

/** A short record of a completed stage, kept (bounded) in the checkpoint to build fidelity preambles after resume. */
export interface StageRecord {
  readonly node: string;
  readonly status: OutcomeStatus;
  readonly notes?: string;
  readonly failure_reason?: string;
}

/**
 * `checkpoint.json` (spec §5.3 extended by DESIGN.md "Checkpoint"): the whole state a resume needs, validated with
 * zod on read (`checkpointSchema`). Its size depends on the graph and the context, never on the length of the run:
 * lists of the past are bounded windows, and visit counters are kept as `visited_nodes` ranges plus the counters
 * above one. `events.jsonl` is an audit trail only; resume never reads it.
 */
export interface Checkpoint {
  readonly version: typeof CHECKPOINT_VERSION;
  /** ISO-8601. */
  readonly timestamp: string;
  readonly run_id: string;
  /** Must match the manifest's `source_sha256`; resume refuses a different graph. */
  readonly graph_sha256: string;
  /**
   * Where the run stands: `running` (resumable at `next_node`), its final status, or `restarted`: a `loop_restart`
   * edge continued the run in the sibling directory `restarted_to`, and this directory is finished (resume and
   * inspect follow the pointer).
   */
  readonly state: 'running' | 'success' | 'fail' | 'cancelled' | 'restarted';
  /** With state `restarted`: the run directory that continues this run. */
  readonly restarted_to?: string;
  /** The last completed node (spec §5.3). Empty before the first node completes. */
  readonly current_node: string;
  /** The node to execute next, already selected so that resume never re-decides a route; null when the run ended. */
  readonly next_node: string | null;
  /** The incoming edge's index in `graph.edges` for `next_node`, for fidelity/thread resolution after resume. */
  readonly next_edge_index: number | null;
  /**
   * The most recent node executions (at most 100), oldest first. The whole path is in the audit trail
   * (`stage.completed` events without `branchPath` in `events.jsonl`).
   */
  readonly completed_nodes: readonly string[];
  /** Number of node executions so far (the `max_steps` counter). */
  readonly step_count: number;
  /** Non-zero retry counters per node (spec §5.3). */
  readonly node_retries: Readonly<Record<string, number>>;
  /**
   * The nodes visited at least once, as positions in the graph's declaration order (`manifest.node_ids`):
   * comma-separated positions or inclusive ranges, ascending, e.g. `0-4,7`. Empty before the first visit.
   */
  readonly visited_nodes: string;
  /**
   * Visit counters (loop guards) of every node visited more than once, and of the last 10 nodes executed and the
   * goal gates; a node in `visited_nodes` without an entry here was visited once.
   */
  readonly node_visits: Readonly<Record<string, number>>;
  /**
   * The latest outcome of every goal gate that ran and of the last 10 nodes executed (goal gates across resume).
   * Full outcomes of older stages are in their `status.json` (evidence, not state).
   */
  readonly node_outcomes: Readonly<Record<string, Outcome>>;
  /** Goal-gate jumps taken so far (`max_gate_retries`). */
  readonly gate_retries: number;
  /** Nodes whose `fallback_retry_target` was already taken (once per failing node per run). */
  readonly fallbacks_taken: readonly string[];
  /** For the `stuck` guard: per node, the last failure reason and how many consecutive visits failed with it. */
  readonly failure_streaks: Readonly<Record<string, { readonly reason: string; readonly count: number }>>;
  /** The fidelity mode the last completed stage used (to degrade `full` once after resume, spec §5.3). */
  readonly last_fidelity: string | null;
  /** The most recent stages (at most 50), newest last, for fidelity preambles. */
  readonly recent_stages: readonly StageRecord[];
  /** The context values. */
  readonly context: Readonly<Record<string, JsonValue>>;
  /** The most recent run log entries (at most 100). */
  readonly logs: readonly string[];
  /** The run's failure or cancellation reason once it ended. */
  readonly failure_reason?: string;
  /** The last event `seq` written before this checkpoint. */
  readonly last_seq: number;
  /** Set on the checkpoints of a forked run: where it came from. */
  readonly origin?: CheckpointOrigin;
}

/**
 * Where a run's state goes. All paths are relative to the run directory and use `/`.
 *
 * Writes may be synchronous (return void) for speed; the engine awaits whatever they return. Implementations must
 * make `writeCheckpoint` atomic: a reader sees either the previous or the new checkpoint, never a torn one.
 */
export interface RunStore {
  /** The run directory (absolute path for file stores; an identifier for others). */
  readonly logsRoot: string;
  readManifest(): Promise<RunManifest | undefined>;
  writeManifest(manifest: RunManifest): void | Promise<void>;
  /**
   * The latest checkpoint, or undefined when none was written.
   * @throws {CheckpointCorruptError} when it exists but does not parse or has another version.
   */
  readCheckpoint(): Promise<Checkpoint | undefined>;
  /** Replaces the checkpoint atomically and appends it to the checkpoint history. */
  writeCheckpoint(checkpoint: Checkpoint): void | Promise<void>;
  /**
   * Every checkpoint written, oldest first (fork and time travel start from any of them). A checkpoint torn by a
   * crash is left out.
   * @throws {CheckpointCorruptError} when a complete entry does not match the schema.
   */
  readCheckpointHistory(): Promise<Checkpoint[]>;
  /** The `seq` of the last event in the event log, 0 when it is empty (new events continue the numbering). */
  readLastEventSeq(): Promise<number>;
  /** Appends events to the event log (`events.jsonl`), in order. */
  appendEvents(events: readonly PipelineEvent[]): void | Promise<void>;
  /** Every event written so far, in order. Torn trailing lines (from a crash) are ignored. */
  readEvents(): Promise<PipelineEvent[]>;
  /**
   * Makes the stage directory ready for visit `visit` of a node: when `visit > 1` and the directory holds an earlier
   * visit's files, moves them to `{stagePath}/visits/{visit - 1}/` first (evidence is never overwritten); then
   * creates the directory. Returns the directory's absolute path.
   */
  prepareStageDir(stagePath: string, visit: number): string | Promise<string>;
  /** Writes `{stagePath}/status.json` (spec Appendix C fields plus `failure_reason`). */
  writeStageStatus(stagePath: string, status: StageStatusFile): void | Promise<void>;
  /** Reads `{stagePath}/status.json` when present (written by a handler or a tool it ran). */
  readStageStatus(stagePath: string): Promise<StageStatusFile | undefined>;
  /**
   * Takes the run's lock (one run, one runner): the engine holds it from before it reads the checkpoint until the
   * run ends. A lock whose holder is dead is taken over.
   * @throws {RunLockedError} when a live runner holds it.
   */
  acquireLock(options: AcquireRunLockOptions): Promise<RunLock>;
  /** Who holds the run's lock now, if anyone recorded it. */
  readLock(): Promise<RunLockHolder | undefined>;
  /** Flushes and releases resources (open file handles). Does not release the lock. */
  close(): void | Promise<void>;
}

/** The JSON shape of `status.json` (spec Appendix C). */
export interface StageStatusFile {
  readonly outcome: OutcomeStatus;
  readonly preferred_label?: string;
  readonly suggested_next_ids?: readonly string[];
  readonly context_updates?: Readonly<Record<string, JsonValue>>;
  readonly notes?: string;
  readonly failure_reason?: string;
  readonly retryable?: boolean;
}
