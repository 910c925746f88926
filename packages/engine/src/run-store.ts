/**
 * Persistence of a run (docs/architecture.md "Checkpoint", "Run directory"): the manifest, the checkpoint,
 * the event log and per-stage status files. `createFileRunStore` (file-run-store.ts) writes the spec §5.6 run
 * directory; `createMemoryRunStore` from `@attractor/engine/test` keeps everything in memory.
 */
import type { JsonValue } from './json-value.js';
import type { Outcome, OutcomeStatus } from './outcome.js';
import type { PipelineEvent } from './pipeline-event.js';
import type { AcquireRunLockOptions, RunLock, RunLockHolder } from './run-lock.js';
import type { WorkspaceRecord } from './run-workspace.js';

/**
 * The current checkpoint format version. A checkpoint with another version is refused on resume. Version 2 made the
 * checkpoint the whole state of a resume (`visited_nodes`, no event-log replay).
 */
export const CHECKPOINT_VERSION = 2;

/** `manifest.json`: what ran, from where, and when (docs/architecture.md "Run directory"). */
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
  /**
   * Set when a `loop_restart` edge continued this run in a sibling directory (on another store than the file store:
   * that store's name for the continuation, its `RunStore.logsRoot`).
   */
  readonly restarted_to?: string;
  /** Set on the sibling directory of a `loop_restart`: the directory it continues (another store: its name). */
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
 * `checkpoint.json` (spec §5.3 extended by docs/architecture.md "Checkpoint"): the whole state a resume
 * needs, validated with zod on read (`checkpointSchema`). Its size depends on the graph and the context,
 * never on the length of the run: lists of the past are bounded windows, and visit counters are kept as
 * `visited_nodes` ranges plus the counters above one. `events.jsonl` is an audit trail only; resume never
 * reads it.
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
  /**
   * With state `restarted`: the run directory that continues this run, or, on another store than the file store,
   * that store's name for it (`RunStore.logsRoot`, e.g. `postgres://…#<run id>-restart-1`); resume on such a store
   * follows it by its last name, as a sibling of the run it resumes.
   */
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
  /**
   * The run's workspace after the last completed stage (README "Workspaces"): its commit, and what its provider needs
   * to reopen it on resume or to start a fork's workspace from it. Absent for a run working in place.
   */
  readonly workspace?: WorkspaceRecord;
}

/**
 * A blob to store: text (written as UTF-8), bytes, or a stream of byte chunks (for large files; read once, in
 * order).
 */
export type BlobData = string | Uint8Array | AsyncIterable<Uint8Array>;

/** A stored blob (a stage file or an artifact) as listed by {@link RunStore.listStageFiles} and friends. */
export interface StoredFileInfo {
  /** Relative to the stage (stage files) or the artifact id (artifacts); `/`-separated. */
  readonly name: string;
  /** Size in bytes. */
  readonly sizeBytes: number;
  /** When it was last written (ISO-8601). */
  readonly modifiedAt: string;
}

/** A real directory standing in for a stage, for programs that need one (see {@link RunStore.localStageDirectory}). */
export interface LocalStageDirectory {
  /** Absolute path of the directory; it exists and holds the stage's files. */
  readonly path: string;
  /**
   * Copies what the directory holds into the store (nothing to do for the file store, whose directory is the stage:
   * it returns undefined, so the engine does not wait for a promise on every node).
   */
  sync(): void | Promise<void>;
}

/**
 * Where a run's state goes (docs/architecture.md "Checkpoint", "Run directory"): one run, engine-facing. No
 * filesystem path crosses it: stages are addressed by their stage path (a node id such as `plan`, or a branch
 * stage `{stagePath}/branches/{branchId}/{nodeId}` such as `fan/branches/b1/lint`), files inside a stage by a
 * relative `/`-separated name (`prompt.md`, `visits/1/response.md`; no `..`, no leading `/`), artifacts by
 * id.
 *
 * Writes may be synchronous (return void) for speed; the engine awaits whatever they return. Implementations must
 * make `writeCheckpoint` atomic: a reader sees either the previous or the new checkpoint, never a torn one. Every
 * implementation passes `describeRunStoreContract` from `@attractor/engine/test`.
 */
export interface RunStore {
  /**
   * Identifies the run's storage: the absolute run directory for the file store, a key such as
   * `postgres://host/db#<runId>` or the run id for others.
   */
  readonly logsRoot: string;
  readManifest(): Promise<RunManifest | undefined>;
  writeManifest(manifest: RunManifest): void | Promise<void>;
  /**
   * Records the run's result (README "Typed data": the graph's `outputs` when the run succeeds): `output.json` in
   * the file store's run directory. Optional: a store without it keeps no separate output (the final checkpoint's
   * context holds the values).
   */
  writeOutput?(output: Readonly<Record<string, JsonValue>>): void | Promise<void>;
  /** The output {@link RunStore.writeOutput} recorded; undefined when there is none. */
  readOutput?(): Promise<Record<string, JsonValue> | undefined>;
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
  /**
   * The events with `seq` greater than `afterSeq` (default 0: all), in order. Torn trailing lines (from a crash) are
   * ignored.
   */
  readEvents(options?: { readonly afterSeq?: number }): Promise<PipelineEvent[]>;
  /**
   * Readies visit `visit` of a stage: when `visit > 1` and the stage holds an earlier visit's files, moves them to
   * `visits/{visit - 1}/` inside the stage first (`visits/{n}-2/`, ... when that name is taken; evidence is never
   * overwritten), so the stage starts empty apart from `visits/`.
   */
  prepareStage(stagePath: string, visit: number): void | Promise<void>;
  /** Writes (creates or replaces) a stage file. Parent "directories" in `name` need no creating. */
  writeStageFile(stagePath: string, name: string, data: BlobData): Promise<void>;
  /** Appends to a stage file, creating it when missing (live `stdout.txt`/`stderr.txt` of a command). */
  appendStageFile(stagePath: string, name: string, data: string | Uint8Array): Promise<void>;
  /** Removes a stage file (e.g. a `status.json` left by an earlier attempt); removing a missing one does nothing. */
  removeStageFile(stagePath: string, name: string): Promise<void>;
  /** A stage file's bytes, or undefined when it does not exist. */
  readStageFile(stagePath: string, name: string): Promise<Uint8Array | undefined>;
  /** A stage file as a stream of chunks (for large files), or undefined when it does not exist. */
  openStageFile(stagePath: string, name: string): Promise<AsyncIterable<Uint8Array> | undefined>;
  /**
   * The stage's files, recursively (earlier visits under `visits/`, nested stages such as `branches/b1/lint/...`
   * too), names relative to the stage, sorted by name. May include `status.json`. Empty for an unknown stage.
   */
  listStageFiles(stagePath: string): Promise<StoredFileInfo[]>;
  /** Every stage path that has files or a status (not counting `visits/` archives), sorted. */
  listStages(): Promise<string[]>;
  /** Writes `status.json` of the stage (spec Appendix C fields plus `failure_reason`). */
  writeStageStatus(stagePath: string, status: StageStatusFile): void | Promise<void>;
  /** Reads `status.json` of the stage when present (written by the engine, a handler or a tool it ran). */
  readStageStatus(stagePath: string): Promise<StageStatusFile | undefined>;
  /**
   * Writes (creates or replaces) an artifact (spec §5.5 file-backed artifacts; the file store keeps it as
   * `artifacts/{id}.json`). `id`: letters, digits, `.`, `_`, `-`.
   */
  writeArtifact(id: string, data: BlobData): Promise<void>;
  /** An artifact's bytes, or undefined when there is none with this id. */
  readArtifact(id: string): Promise<Uint8Array | undefined>;
  /** Removes an artifact; removing a missing one does nothing. */
  removeArtifact(id: string): Promise<void>;
  /** The artifacts (`name` is the id), sorted by id. */
  listArtifacts(): Promise<StoredFileInfo[]>;
  /**
   * The store of a child run kept under this run (a sub-pipeline or a manager's child), e.g. `child('review/child')`;
   * the file store keeps it in that subdirectory. Calling it twice with one path gives the same run.
   */
  child(relativePath: string): RunStore;
  /**
   * A real directory for a stage, for handlers that must hand one to a program (agent CLIs, a tool's
   * `ATTRACTOR_STAGE_DIR`): the file store returns the stage's own directory; other stores return a scratch
   * directory holding the stage's files and copy its files into the store on `sync()` (the engine calls it after
   * the stage).
   */
  localStageDirectory(stagePath: string): LocalStageDirectory | Promise<LocalStageDirectory>;
  /**
   * Takes the run's lock (one run, one runner): the engine holds it from before it reads the checkpoint until the
   * run ends. A lock whose holder is dead is taken over.
   * @throws {RunLockedError} when a live runner holds it.
   */
  acquireLock(options: AcquireRunLockOptions): Promise<RunLock>;
  /** Who holds the run's lock now, if anyone recorded it. */
  readLock(): Promise<RunLockHolder | undefined>;
  /** Flushes and releases resources (open file handles, scratch directories). Does not release the lock. */
  close(): void | Promise<void>;
}

/** Where a run stands, as the run index reports it. `interrupted`: its runner died while it was running. */
export type RunIndexStatus = 'running' | 'waiting' | 'success' | 'fail' | 'cancelled' | 'interrupted';

/** One run as {@link RunCatalog.listRuns} reports it. */
export interface RunIndexEntry {
  readonly runId: string;
  readonly graphName: string;
  readonly goal: string;
  readonly status: RunIndexStatus;
  /** The node executing now, or the last one completed. */
  readonly currentNode?: string;
  /** ISO-8601. */
  readonly startedAt: string;
  /** ISO-8601, once it ended. */
  readonly endedAt?: string;
  /** Tokens used so far, when recorded. */
  readonly tokens?: number;
  /** Cost so far in US dollars, when recorded. */
  readonly costUsd?: number;
  /** The run this one continues (a `loop_restart`) or runs under, when any. */
  readonly parentRunId?: string;
  /** The run this one was forked from (`forkRun`). */
  readonly forkedFrom?: string;
  /**
   * The completed stage of `forkedFrom` the fork started after (its manifest's `forked_from`): node and visit. The
   * file and PostgreSQL catalogs give it with `forkedFrom`.
   */
  readonly forkedAt?: { readonly node: string; readonly visit: number };
  /**
   * Input and output tokens apart (`agent.usage`, parallel branches included), when recorded and not zero (the
   * PostgreSQL catalog records them).
   */
  readonly inputTokens?: number;
  readonly outputTokens?: number;
  /**
   * Milliseconds the run executed, once it ended: the sum of its legs (`legDurationMs`), time suspended or stopped
   * between them not counted; when the catalog records it (the PostgreSQL catalog does).
   */
  readonly durationMs?: number;
  /**
   * How many times the run was resumed (its own top-level `pipeline.started` with `resumed`, a fork's first and the
   * one continuing a run suspended at a gate excepted), when it was and the catalog records it (the PostgreSQL
   * catalog does).
   */
  readonly resumes?: number;
  /**
   * Branches of its parallel nodes that failed (the latest `parallel.completed` `failureCount` of each node), when any
   * did and the catalog records them (the PostgreSQL catalog does). The run may still have ended `success`.
   */
  readonly failedBranches?: number;
  /** Items of its `foreach` nodes that failed (`foreach.completed` `failureCount`, as `failedBranches`). */
  readonly failedItems?: number;
  /**
   * When the run was archived (ISO-8601; {@link RunCatalog.setRunArchived}), when it is and the catalog records it
   * (the PostgreSQL catalog does). An archived run keeps everything else.
   */
  readonly archivedAt?: string;
}

/** Filter of {@link RunCatalog.listRuns}. */
export interface RunIndexFilter {
  readonly status?: RunIndexStatus;
  /** Only runs of this graph name. */
  readonly graph?: string;
  /** At most this many runs (newest first). Default: all. */
  readonly limit?: number;
  /** Only these runs (ids the index does not list are left out). Default: all. */
  readonly runIds?: readonly string[];
}

/** Many runs (what `--store <url>` opens): used by the CLI, the server and workers. */
export interface RunCatalog {
  /** Where it lives, for messages (no password: `postgres://user@host:5432/db`, or the runs directory). */
  readonly location: string;
  /** The store of one run (created lazily on first write). */
  open(runId: string): RunStore;
  /** Runs, newest first, from the run index (file store: manifests + checkpoints of the runs directory). */
  listRuns(filter?: RunIndexFilter): Promise<RunIndexEntry[]>;
  /**
   * One run's entry of the run index, as {@link RunCatalog.listRuns} lists it (the same status rule); undefined when
   * the run is not listed: never written, or continued elsewhere by a `loop_restart` edge.
   * @throws {InvalidStoreNameError} when `runId` is not a valid run id (as `open`).
   */
  readRunEntry(runId: string): Promise<RunIndexEntry | undefined>;
  /**
   * How many runs {@link RunCatalog.listRuns} lists with `filter` (its `limit` ignored), without reading them: what
   * a page of a long listing (`attractor runs`) needs beside its entries. Optional: the PostgreSQL catalog has it; a
   * caller without it lists the runs and counts them (the file catalog reads its whole index either way).
   */
  countRuns?(filter?: RunIndexFilter): Promise<number>;
  /**
   * Removes a run and all that is stored of it: its checkpoints, events, stage files, artifacts and child runs, and
   * the runs a `loop_restart` edge continued in it (not listed on their own). Takes the run's lock first, so a run a
   * live runner holds is never removed. Resolves false when the catalog has no such run.
   * @throws {RunLockedError} when a live runner holds the run.
   * @throws {InvalidStoreNameError} when `runId` is not a valid run id (as `open`).
   */
  removeRun(runId: string): Promise<boolean>;
  /**
   * Archives a run (`archivedAt` a time: its entry's {@link RunIndexEntry.archivedAt}; an archived run keeps its
   * first time) or unarchives it (`archivedAt` undefined). Resolves false when the catalog has no such run. Optional:
   * the PostgreSQL catalog has it; the file catalog does not (a server keeps its own mark in the run directory).
   * @throws {InvalidStoreNameError} when `runId` is not a valid run id (as `open`).
   */
  setRunArchived?(options: {
    readonly runId: string;
    readonly archivedAt: Date | undefined;
  }): Promise<boolean>;
  close(): Promise<void>;
}

/** Everything {@link readRun} reads of a run. */
export interface RunRecord {
  readonly manifest: RunManifest | undefined;
  readonly checkpoint: Checkpoint | undefined;
  readonly lock: RunLockHolder | undefined;
  /** Every stage (see {@link RunStore.listStages}) with its `status.json`, sorted by stage path. */
  readonly stages: readonly { readonly stagePath: string; readonly status: StageStatusFile | undefined }[];
}

/** Options of {@link readRun}. */
export interface ReadRunOptions {
  /** Read the stages and their statuses too. Default: true (resume, which needs none, passes false). */
  readonly stages?: boolean;
}

/**
 * Reads a run through its store: the one reader of the engine's resume, the server and `inspect`.
 * @throws {CheckpointCorruptError} when the checkpoint exists but does not match the schema.
 */
export async function readRun(store: RunStore, options: ReadRunOptions = {}): Promise<RunRecord> {
  const [manifest, checkpoint, lock, stagePaths] = await Promise.all([
    store.readManifest(),
    store.readCheckpoint(),
    store.readLock(),
    options.stages === false ? [] : store.listStages(),
  ]);
  const stages = await Promise.all(
    stagePaths.map(async (stagePath) => ({ stagePath, status: await readStatusQuietly(store, stagePath) })),
  );
  return { manifest, checkpoint, lock, stages };
}

/** A stage's status, or undefined when it is missing or not JSON (a tool may have written it badly). */
async function readStatusQuietly(store: RunStore, stagePath: string): Promise<StageStatusFile | undefined> {
  try {
    return await store.readStageStatus(stagePath);
  } catch (error) {
    if (error instanceof SyntaxError) return undefined;
    throw error;
  }
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
  /** The workspace commit that recorded the stage's file changes (written by the engine; absent when none). */
  readonly commit?: string;
}
