/**
 * One run in PostgreSQL (the engine's `RunStore` contract): the manifest and run index row (`runs`), the checkpoint
 * history (`checkpoints`; the latest row is the checkpoint), the event log (`events`), stage files and artifacts as
 * chunked blobs (`files`, `file_chunks`) and the run lock (postgres-run-lock.ts).
 *
 * Every write is one statement or one transaction, so a reader never sees half of it; the run index is updated in
 * the same statement as the manifest, checkpoint or events that change it. The writes of one store object run one
 * after the other in call order (a handler may append to `stdout.txt` without awaiting each call), and its reads
 * wait for the writes issued before them.
 */
import type {
  BlobData,
  Checkpoint,
  LocalStageDirectory,
  PipelineEvent,
  RunLockHolder,
  RunManifest,
  RunStore,
  StageStatusFile,
  StoredFileInfo,
} from '@attractor/engine';
import {
  CheckpointCorruptError,
  checkArtifactId,
  checkRelativeName,
  parseCheckpoint,
} from '@attractor/engine';
import type pg from 'pg';
import { createScratchStageDirectory, type ScratchStageDirectory } from './local-stage-directory.js';
import { createOrderedWriter, type OrderedWriter } from './ordered-writer.js';
import { acquirePostgresRunLock, holderOf, type LockRow, liveHolderQuery } from './postgres-run-lock.js';
import { prepared } from './prepared.js';
import {
  patchFromCheckpoint,
  patchFromEvents,
  patchFromManifest,
  type RunIndexPatch,
} from './run-index-patch.js';
import { inTransaction } from './with-transaction.js';

/** Size of the chunks blobs are cut into, in bytes: 1 MiB. */
export const BLOB_CHUNK_BYTES = 1024 * 1024;
/** Chunks fetched per query when a blob is streamed: up to 4 MiB. */
const CHUNKS_PER_READ = 4;
const ARCHIVE_DIRECTORY = 'visits/';

/** What the stores of one catalog share. */
export interface PostgresStoreContext {
  readonly pool: pg.Pool;
  /** Settings for the connections the run locks hold. */
  readonly clientConfig: pg.ClientConfig;
  /** The quoted schema name. */
  readonly schema: string;
  /** The unquoted schema name. */
  readonly schemaName: string;
  /** Where the catalog lives, without password (`postgres://user@host:port/db`). */
  readonly location: string;
  /** Resolves once the migrations are applied. */
  readonly ready: () => Promise<void>;
  /** Parent directory of the scratch directories of `localStageDirectory`. */
  readonly scratchRoot: string;
  /** Records the connections that hold run locks (closed with the catalog). */
  readonly trackLock: (client: pg.Client, held: boolean) => void;
  /** Opens the pipelined connection of a store's writes (migrations applied, session settings made). */
  readonly connectWriter: () => Promise<pg.Client>;
  /** Registers (`open: true`) or forgets the writer of a store of `runKey`. */
  readonly trackWriter: (runKey: string, writer: OrderedWriter, open: boolean) => void;
  /** Resolves once the writes issued so far by the catalog's stores of `runKey` (of every run: undefined), but `except`, completed. */
  readonly settled: (runKey?: string, except?: OrderedWriter) => Promise<void>;
}

type Area = 'stage' | 'artifact';

/**
 * The store of the run `runKey` (a run id, or `<parent key>/<relative path>` for a child run).
 * @param context what the catalog's stores share
 * @param runKey the run's key in every table
 * @param parentKey the key of the run this child run is kept under
 */
export function createPostgresRunStore(
  context: PostgresStoreContext,
  runKey: string,
  parentKey?: string,
): RunStore {
  const { pool, schema: s } = context;
  const logsRoot = `${context.location}#${runKey}`;
  const children = new Map<string, RunStore>();
  /** The scratch directory of each stage; a stage's next one replaces it (the engine asks once per visit). */
  const scratch = new Map<string, ScratchStageDirectory>();
  // Registered with the catalog from its first write (other stores' reads of this run wait for its writes) until
  // the store closes; a store that only reads is never registered.
  const writer: OrderedWriter = createOrderedWriter(() => {
    context.trackWriter(runKey, writer, true);
    return context.connectWriter();
  });
  /** Set when the connection holding this store's run lock ended while the lock was held. */
  let lockLost: Error | undefined;

  /**
   * A query that sees every write this store issued before it: on the store's own connection once it has written
   * (the server runs it after those writes), else on the pool.
   */
  const query = <TRow extends pg.QueryResultRow>(
    sql: string,
    params: readonly unknown[],
  ): Promise<pg.QueryResult<TRow>> =>
    writer.hasWritten() ? writer.query<TRow>(sql, params) : pool.query<TRow>(prepared(sql, params));
  /** Runs a read once the schema is ready and the writes of the catalog's other stores of this run completed. */
  const read = async <T>(work: () => Promise<T>): Promise<T> => {
    await context.ready();
    await context.settled(runKey, writer);
    return work();
  };
  /**
   * A write the caller need not wait for (events, status files, appended output): it is sent at once, and a failure
   * fails every later write and wait of this store, the next checkpoint first.
   */
  const behind = (written: Promise<void>): void => {
    written.catch(() => undefined);
  };

  /** `INSERT … ON CONFLICT DO UPDATE` of the run index row with `patch`, its parameters numbered from `first`. */
  const indexUpsert = (patch: RunIndexPatch, first: number): { sql: string; params: unknown[] } => {
    const columns: string[] = [];
    const params: unknown[] = [runKey, parentKey ?? null];
    const set = (column: string, value: unknown, cast = '') => {
      params.push(value);
      columns.push(column);
      return `$${first + params.length - 1}${cast}`;
    };
    const values = [`$${first}`, `$${first + 1}`];
    for (const key of [
      'run_id',
      'graph_name',
      'goal',
      'status',
      'current_node',
      'parent_run_id',
      'forked_from',
      'forked_from_node',
      'forked_from_visit',
      'manifest',
      'suspended',
    ] as const) {
      if (patch[key] !== undefined) values.push(set(key, patch[key]));
    }
    if (patch.failures !== undefined) values.push(set('failures', JSON.stringify(patch.failures), '::jsonb'));
    for (const key of ['started_at', 'ended_at'] as const) {
      const value = patch[key];
      if (value === null) values.push(set(key, null, '::timestamptz'));
      else if (value !== undefined && !Number.isNaN(Date.parse(value)))
        values.push(set(key, value, '::timestamptz'));
    }
    // Counters: the patch's increments are added to the row's.
    const counters = [
      ['tokens', Math.round(patch.tokensDelta ?? 0), '::bigint'],
      ['cost_usd', patch.costDelta ?? 0, '::double precision'],
      ['input_tokens', Math.round(patch.inputTokensDelta ?? 0), '::bigint'],
      ['output_tokens', Math.round(patch.outputTokensDelta ?? 0), '::bigint'],
      ['legs_ms', Math.round(patch.legsMsDelta ?? 0), '::bigint'],
      ['resumes', patch.resumesDelta ?? 0, '::integer'],
    ] as const;
    for (const [, delta, cast] of counters) {
      params.push(delta);
      values.push(`$${first + params.length - 1}${cast}`);
    }
    const updates = columns.map((column) =>
      // A failure count replaces the same node's earlier one; other nodes' stay.
      column === 'failures'
        ? `failures = ${s}.runs.failures || EXCLUDED.failures`
        : `${column} = EXCLUDED.${column}`,
    );
    // The batch's first resume continues a run suspended at a gate when the row says so: then it is no resume.
    const notAResume =
      patch.resumeAfterRow === true ? ` - CASE WHEN ${s}.runs.suspended THEN 1 ELSE 0 END` : '';
    const sql = `INSERT INTO ${s}.runs (run_key, parent_key, ${[...columns, ...counters.map(([column]) => column)].join(', ')}, updated_at)
      VALUES (${values.join(', ')}, clock_timestamp())
      ON CONFLICT (run_key) DO UPDATE SET ${[
        ...updates,
        ...counters.map(
          ([column]) =>
            `${column} = ${s}.runs.${column} + EXCLUDED.${column}${column === 'resumes' ? notAResume : ''}`,
        ),
        'updated_at = EXCLUDED.updated_at',
      ].join(', ')}`;
    return { sql, params };
  };

  const hasIndexChange = (patch: RunIndexPatch) => Object.keys(patch).length > 0;

  const stageFilePath = (stagePath: string, name: string) =>
    `${checkRelativeName('stage path', stagePath)}/${checkRelativeName('stage file name', name)}`;

  /** Replaces blobs of at most one chunk each, all in one statement. */
  const putSmallBlobs = async (
    area: Area,
    stagePath: string,
    blobs: readonly { readonly path: string; readonly bytes: Buffer }[],
  ): Promise<void> => {
    if (blobs.length === 0) return;
    await writer.send(
      `WITH input AS (SELECT * FROM unnest($4::text[], $5::bytea[]) AS t(path, data)),
         f AS (
           INSERT INTO ${s}.files (run_key, area, path, stage_path, size_bytes, modified_at)
           SELECT $1, $2, path, $3, octet_length(data), clock_timestamp() FROM input
           ON CONFLICT (run_key, area, path) DO UPDATE SET stage_path = EXCLUDED.stage_path,
             size_bytes = EXCLUDED.size_bytes, modified_at = EXCLUDED.modified_at
           RETURNING id, path),
         d AS (DELETE FROM ${s}.file_chunks c USING f WHERE c.file_id = f.id)
       INSERT INTO ${s}.file_chunks (file_id, data) SELECT f.id, input.data FROM f JOIN input USING (path)`,
      [runKey, area, stagePath, blobs.map((blob) => blob.path), blobs.map((blob) => blob.bytes)],
    );
  };

  /** Replaces a blob: one statement for bytes that fit a chunk, a transaction streaming chunks otherwise. */
  const putBlob = async (area: Area, path: string, stagePath: string, data: BlobData): Promise<void> => {
    const upsertFile = `INSERT INTO ${s}.files (run_key, area, path, stage_path, size_bytes, modified_at)
      VALUES ($1, $2, $3, $4, $5, clock_timestamp())
      ON CONFLICT (run_key, area, path) DO UPDATE SET stage_path = EXCLUDED.stage_path,
        size_bytes = EXCLUDED.size_bytes, modified_at = EXCLUDED.modified_at
      RETURNING id`;
    if (typeof data === 'string' || data instanceof Uint8Array) {
      const bytes = toBuffer(data);
      if (bytes.length <= BLOB_CHUNK_BYTES) {
        await putSmallBlobs(area, stagePath, [{ path, bytes }]);
        return;
      }
      data = oneChunk(bytes);
    }
    await writer.exclusive((client) =>
      inTransaction(client, async () => {
        const file = await client.query<{ id: string }>(upsertFile, [runKey, area, path, stagePath, 0]);
        const id = file.rows[0]!.id;
        await client.query(`DELETE FROM ${s}.file_chunks WHERE file_id = $1`, [id]);
        let size = 0;
        let wrote = false;
        for await (const chunk of rechunk(data)) {
          await client.query(`INSERT INTO ${s}.file_chunks (file_id, data) VALUES ($1, $2::bytea)`, [
            id,
            chunk,
          ]);
          size += chunk.length;
          wrote = true;
        }
        // Every blob has at least one chunk, so that reading a file finds it even when it is empty.
        if (!wrote) await client.query(`INSERT INTO ${s}.file_chunks (file_id, data) VALUES ($1, '')`, [id]);
        await client.query(`UPDATE ${s}.files SET size_bytes = $2 WHERE id = $1`, [id, size]);
      }),
    );
  };

  const appendBlob = async (path: string, stagePath: string, data: string | Uint8Array): Promise<void> => {
    const bytes = toBuffer(data);
    const chunks: Buffer[] = [];
    for (let offset = 0; offset < bytes.length || chunks.length === 0; offset += BLOB_CHUNK_BYTES) {
      chunks.push(bytes.subarray(offset, offset + BLOB_CHUNK_BYTES));
    }
    await writer.send(
      `WITH f AS (
         INSERT INTO ${s}.files (run_key, area, path, stage_path, size_bytes, modified_at)
         VALUES ($1, 'stage', $2, $3, $4, clock_timestamp())
         ON CONFLICT (run_key, area, path) DO UPDATE
           SET size_bytes = ${s}.files.size_bytes + EXCLUDED.size_bytes, modified_at = EXCLUDED.modified_at
         RETURNING id)
       INSERT INTO ${s}.file_chunks (file_id, data)
       SELECT f.id, t.data FROM f, unnest($5::bytea[]) WITH ORDINALITY AS t(data, n) ORDER BY t.n`,
      [runKey, path, stagePath, bytes.length, chunks],
    );
  };

  /** The chunk ids and sizes of a blob, or undefined when it does not exist. */
  const chunkList = async (area: Area, path: string) => {
    const result = await query<{ file_id: string; id: string }>(
      `SELECT c.file_id, c.id FROM ${s}.files f JOIN ${s}.file_chunks c ON c.file_id = f.id
       WHERE f.run_key = $1 AND f.area = $2 AND f.path = $3 ORDER BY c.id`,
      [runKey, area, path],
    );
    return result.rows.length === 0 ? undefined : result.rows;
  };

  const readBlob = async (area: Area, path: string): Promise<Uint8Array | undefined> => {
    const result = await query<{ data: Buffer }>(
      `SELECT c.data FROM ${s}.files f JOIN ${s}.file_chunks c ON c.file_id = f.id
       WHERE f.run_key = $1 AND f.area = $2 AND f.path = $3 ORDER BY c.id`,
      [runKey, area, path],
    );
    if (result.rows.length === 0) return undefined;
    return result.rows.length === 1
      ? result.rows[0]!.data
      : Buffer.concat(result.rows.map((row) => row.data));
  };

  const openBlob = async (area: Area, path: string): Promise<AsyncIterable<Uint8Array> | undefined> => {
    const chunks = await chunkList(area, path);
    if (chunks === undefined) return undefined;
    return (async function* () {
      for (let start = 0; start < chunks.length; start += CHUNKS_PER_READ) {
        const batch = chunks.slice(start, start + CHUNKS_PER_READ);
        const result = await pool.query<{ data: Buffer }>(
          `SELECT data FROM ${s}.file_chunks WHERE file_id = $1 AND id = ANY($2::bigint[]) ORDER BY id`,
          [batch[0]!.file_id, batch.map((chunk) => chunk.id)],
        );
        if (result.rows.length !== batch.length) {
          throw new Error(`${logsRoot}: ${path} was replaced while it was being read; read it again`);
        }
        for (const row of result.rows) yield row.data;
      }
    })();
  };

  const listBlobs = async (area: Area, prefix: string): Promise<StoredFileInfo[]> => {
    const result = await query<{ path: string; size_bytes: string; modified_at: Date }>(
      `SELECT path, size_bytes, modified_at FROM ${s}.files
       WHERE run_key = $1 AND area = $2 AND starts_with(path, $3)`,
      [runKey, area, prefix],
    );
    return result.rows
      .map((row) => ({
        name: row.path.slice(prefix.length),
        sizeBytes: Number(row.size_bytes),
        modifiedAt: row.modified_at.toISOString(),
      }))
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  };

  const removeBlob = async (area: Area, path: string): Promise<void> => {
    await writer.send(`DELETE FROM ${s}.files WHERE run_key = $1 AND area = $2 AND path = $3`, [
      runKey,
      area,
      path,
    ]);
  };

  const parseStored = (text: string, what: string): unknown => {
    try {
      return JSON.parse(text);
    } catch (error) {
      throw new CheckpointCorruptError({
        path: `${logsRoot} ${what}`,
        reason: 'it is not valid JSON',
        cause: error,
      });
    }
  };

  const store: RunStore = {
    logsRoot,

    readManifest: () =>
      read(async () => {
        const result = await query<{ manifest: string | null }>(
          `SELECT manifest FROM ${s}.runs WHERE run_key = $1`,
          [runKey],
        );
        const text = result.rows[0]?.manifest;
        return text == null ? undefined : (parseStored(text, 'manifest') as RunManifest);
      }),

    async writeManifest(manifest) {
      const upsert = indexUpsert(patchFromManifest(manifest), 1);
      behind(writer.send(upsert.sql, upsert.params));
    },

    readCheckpoint: () =>
      read(async () => {
        const result = await query<{ body: string }>(
          `SELECT body FROM ${s}.checkpoints WHERE run_key = $1 ORDER BY id DESC LIMIT 1`,
          [runKey],
        );
        const body = result.rows[0]?.body;
        if (body === undefined) return undefined;
        return parseCheckpoint(parseStored(body, 'checkpoint'), `${logsRoot} checkpoint`);
      }),

    // The durability point the engine waits for: written only once every write before it (events, files) is.
    async writeCheckpoint(checkpoint) {
      // Another runner may have taken the run over: this one must not move it on.
      if (lockLost !== undefined) throw lockLost;
      const body = JSON.stringify(checkpoint);
      const patch = patchFromCheckpoint(checkpoint);
      if (!hasIndexChange(patch)) {
        await writer.sendAfterEarlier(`INSERT INTO ${s}.checkpoints (run_key, body) VALUES ($1, $2)`, [
          runKey,
          body,
        ]);
        return;
      }
      // The upsert's parameters start at $2 with the run key.
      const upsert = indexUpsert(patch, 2);
      await writer.sendAfterEarlier(
        `WITH c AS (INSERT INTO ${s}.checkpoints (run_key, body) VALUES ($2, $1)) ${upsert.sql}`,
        [body, ...upsert.params],
      );
    },

    readCheckpointHistory: () =>
      read(async () => {
        const result = await query<{ id: string; body: string }>(
          `SELECT id, body FROM ${s}.checkpoints WHERE run_key = $1 ORDER BY id`,
          [runKey],
        );
        return result.rows.map((row, index) =>
          parseCheckpoint(
            parseStored(row.body, `checkpoint history entry ${index + 1}`),
            `${logsRoot} checkpoint history entry ${index + 1}`,
          ),
        ) as Checkpoint[];
      }),

    readLastEventSeq: () =>
      read(async () => {
        const result = await query<{ seq: string }>(
          `SELECT seq FROM ${s}.events WHERE run_key = $1 ORDER BY id DESC LIMIT 1`,
          [runKey],
        );
        return result.rows[0] === undefined ? 0 : Number(result.rows[0].seq);
      }),

    async appendEvents(events) {
      if (events.length === 0) return;
      const insert = (runKeyParam: string, seqParam: string, bodyParam: string) =>
        `INSERT INTO ${s}.events (run_key, seq, body)
         SELECT ${runKeyParam}, t.seq, t.body
         FROM unnest(${seqParam}::bigint[], ${bodyParam}::text[]) WITH ORDINALITY AS t(seq, body, n)
         ORDER BY t.n`;
      const seqs = events.map((event) => event.seq);
      const bodies = events.map((event) => JSON.stringify(event));
      const patch = patchFromEvents(events, parentKey === undefined ? { runId: runKey } : {});
      // Readers that follow the run (a server's SSE) are woken once the events are committed.
      const notify = () =>
        behind(writer.send('SELECT pg_notify($1, $2)', [eventsChannel(context.schemaName), runKey]));
      if (!hasIndexChange(patch)) {
        behind(writer.send(insert('$1', '$2', '$3'), [runKey, seqs, bodies]));
        notify();
        return;
      }
      // The upsert's parameters start at $3 with the run key.
      const upsert = indexUpsert(patch, 3);
      behind(
        writer.send(`WITH e AS (${insert('$3', '$1', '$2')}) ${upsert.sql}`, [
          seqs,
          bodies,
          ...upsert.params,
        ]),
      );
      notify();
    },

    readEvents: (options) =>
      read(async () => {
        const result = await query<{ body: string }>(
          `SELECT body FROM ${s}.events WHERE run_key = $1 AND seq > $2 ORDER BY id`,
          [runKey, options?.afterSeq ?? 0],
        );
        return result.rows.map((row) => JSON.parse(row.body) as PipelineEvent);
      }),

    async prepareStage(stagePath, visit) {
      const prefix = `${checkRelativeName('stage path', stagePath)}/`;
      if (visit <= 1) return;
      await writer.exclusive(async (client) => {
        const result = await client.query<{ path: string }>(
          `SELECT path FROM ${s}.files WHERE run_key = $1 AND area = 'stage' AND starts_with(path, $2)`,
          [runKey, prefix],
        );
        const archives = new Set<string>();
        let earlier = false;
        for (const { path } of result.rows) {
          const name = path.slice(prefix.length);
          if (name.startsWith(ARCHIVE_DIRECTORY))
            archives.add(name.slice(ARCHIVE_DIRECTORY.length).split('/')[0]!);
          else earlier = true;
        }
        if (!earlier) return;
        let archive = String(visit - 1);
        for (let suffix = 2; archives.has(archive); suffix++) archive = `${visit - 1}-${suffix}`;
        await client.query(
          `UPDATE ${s}.files SET path = $2 || $3 || substr(path, length($2) + 1), stage_path = $4
           WHERE run_key = $1 AND area = 'stage' AND starts_with(path, $2) AND NOT starts_with(path, $2 || $5)`,
          [runKey, prefix, `${ARCHIVE_DIRECTORY}${archive}/`, stagePath, ARCHIVE_DIRECTORY],
        );
      });
    },

    async writeStageFile(stagePath, name, data) {
      await putBlob('stage', stageFilePath(stagePath, name), stagePath, data);
    },

    async removeStageFile(stagePath, name) {
      await removeBlob('stage', stageFilePath(stagePath, name));
    },

    async appendStageFile(stagePath, name, data) {
      behind(appendBlob(stageFilePath(stagePath, name), stagePath, data));
    },

    readStageFile: (stagePath, name) => read(() => readBlob('stage', stageFilePath(stagePath, name))),

    openStageFile: (stagePath, name) => read(() => openBlob('stage', stageFilePath(stagePath, name))),

    listStageFiles: (stagePath) =>
      read(() => listBlobs('stage', `${checkRelativeName('stage path', stagePath)}/`)),

    listStages: () =>
      read(async () => {
        const result = await query<{ stage_path: string }>(
          `SELECT DISTINCT stage_path FROM ${s}.files
           WHERE run_key = $1 AND area = 'stage' AND NOT starts_with(path, stage_path || '/' || $2)`,
          [runKey, ARCHIVE_DIRECTORY],
        );
        return result.rows.map((row) => row.stage_path).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
      }),

    async writeStageStatus(stagePath, status) {
      const path = stageFilePath(stagePath, 'status.json');
      const bytes = Buffer.from(`${JSON.stringify(status, null, 2)}\n`, 'utf8');
      behind(putSmallBlobs('stage', stagePath, [{ path, bytes }]));
    },

    readStageStatus: (stagePath) =>
      read(async () => {
        const bytes = await readBlob('stage', stageFilePath(stagePath, 'status.json'));
        return bytes === undefined
          ? undefined
          : (JSON.parse(Buffer.from(bytes).toString('utf8')) as StageStatusFile);
      }),

    async writeArtifact(id, data) {
      await putBlob('artifact', checkArtifactId(id), '', data);
    },

    readArtifact: (id) => read(() => readBlob('artifact', checkArtifactId(id))),

    async removeArtifact(id) {
      await removeBlob('artifact', checkArtifactId(id));
    },

    listArtifacts: () => read(() => listBlobs('artifact', '')),

    child(relativePath) {
      const path = checkRelativeName('child path', relativePath);
      let child = children.get(path);
      if (child === undefined) {
        child = createPostgresRunStore(context, `${runKey}/${path}`, runKey);
        children.set(path, child);
      }
      return child;
    },

    async localStageDirectory(stagePath): Promise<LocalStageDirectory> {
      checkRelativeName('stage path', stagePath);
      const directory = await createScratchStageDirectory({
        scratchRoot: context.scratchRoot,
        files: {
          list: () => store.listStageFiles(stagePath),
          read: (name) => store.readStageFile(stagePath, name),
          open: (name) => store.openStageFile(stagePath, name),
          write: (name, data) => store.writeStageFile(stagePath, name, data),
          // The bytes are in memory already: sent without waiting, like the events (the checkpoint waits for them).
          writeSmall: async (files) => {
            const blobs = files.map((file) => ({
              path: stageFilePath(stagePath, file.name),
              bytes: toBuffer(file.bytes),
            }));
            behind(putSmallBlobs('stage', stagePath, blobs));
          },
          smallBytes: BLOB_CHUNK_BYTES,
          remove: (name) => store.removeStageFile(stagePath, name),
        },
      });
      await scratch.get(stagePath)?.remove();
      scratch.set(stagePath, directory);
      return { path: directory.path, sync: () => directory.sync() };
    },

    acquireLock: async (lockOptions) => {
      await context.ready();
      return acquirePostgresRunLock({
        clientConfig: context.clientConfig,
        schema: s,
        schemaName: context.schemaName,
        runKey,
        logsRoot,
        since: lockOptions.since,
        track: context.trackLock,
        onLost: () => {
          lockLost = new Error(
            `${logsRoot}: the connection holding the run lock ended, so another runner may take this run over; this runner stops writing checkpoints. Resume the run (its last checkpoint is intact).`,
          );
        },
      });
    },

    readLock: () =>
      read(async (): Promise<RunLockHolder | undefined> => {
        const result = await query<LockRow>(liveHolderQuery(s), [runKey]);
        return holderOf(result.rows[0]);
      }),

    async close() {
      await writer.close();
      context.trackWriter(runKey, writer, false);
      for (const directory of scratch.values()) await directory.remove();
      scratch.clear();
      for (const child of children.values()) await child.close();
    },
  };
  return store;
}

function toBuffer(data: string | Uint8Array): Buffer {
  if (typeof data === 'string') return Buffer.from(data, 'utf8');
  return Buffer.isBuffer(data) ? data : Buffer.from(data.buffer, data.byteOffset, data.byteLength);
}

async function* oneChunk(bytes: Buffer): AsyncIterable<Uint8Array> {
  yield bytes;
}

/** Cuts a stream of byte chunks of any size into chunks of at most {@link BLOB_CHUNK_BYTES} (all full but the last). */
async function* rechunk(source: AsyncIterable<Uint8Array>): AsyncIterable<Buffer> {
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  for await (const piece of source) {
    let bytes = toBuffer(piece);
    while (pendingBytes + bytes.length >= BLOB_CHUNK_BYTES) {
      const take = BLOB_CHUNK_BYTES - pendingBytes;
      pending.push(bytes.subarray(0, take));
      yield Buffer.concat(pending);
      pending = [];
      pendingBytes = 0;
      bytes = bytes.subarray(take);
    }
    if (bytes.length > 0) {
      pending.push(bytes);
      pendingBytes += bytes.length;
    }
  }
  if (pendingBytes > 0) yield Buffer.concat(pending);
}

/**
 * The `NOTIFY` channel on which a store announces appended events (payload: the run key, e.g. the run id, or
 * `<run id>/<child path>` for a child run): `<schema>_events`, e.g. `attractor_events`.
 */
export function eventsChannel(schema: string): string {
  return `${schema}_events`;
}
