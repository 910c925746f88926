/**
 * The run queue on PostgreSQL: pg-boss jobs plus one row per run (queue-tables.ts). Enqueueing, answering a gate
 * and cancelling are transactions: the row and the job commit together, so a job never points at a missing row and
 * an answer is never stored without the job that resumes its run.
 */
import { randomBytes } from 'node:crypto';
import { type Answer, type Clock, type Question, systemClock } from '@attractor/engine';
import pg from 'pg';
import { type Db as IDatabase, PgBoss } from 'pg-boss';
import { AnswerRefusedError } from './errors/answer-refused-error.js';
import { QueueUnavailableError } from './errors/queue-unavailable-error.js';
import { maskRunRequest } from './mask-run-request.js';
import { matchAnswer } from './match-answer.js';
import { describeQueueLocation, queueUnavailable } from './queue-location.js';
import {
  CANCEL_CHANNEL,
  DEAD_RUN_QUEUE_NAME,
  ensureQueueTables,
  QUEUE_SCHEMA,
  type QueuedRunRow,
  RUN_QUEUE_NAME,
  toQueuedRun,
} from './queue-tables.js';
import type { QueuedRun, QueuedRunState, RunRequest } from './queued-run.js';
import { queueKeyProblem, signRunRequest, verifyRunRequest } from './sign-run-request.js';

/** Why a run job was sent: a new run, an answer, a gate's deadline, or a worker that stopped and handed it back. */
export type RunJobTrigger = 'start' | 'answer' | 'timeout' | 'requeue' | 'resume';

/** The data of a pg-boss job of the run queue. */
export interface RunJobData {
  readonly runId: string;
  readonly trigger: RunJobTrigger;
  /** With `timeout`: the question whose deadline it is. */
  readonly questionId?: string;
  /**
   * On a job a worker put on the dead letter queue itself (the run's executor crashed too often): why the run ends.
   * Without it the dead letter's reason is the job's retry count and last error.
   */
  readonly reason?: string;
}

/**
 * Job settings of the run queue, applied when a worker's queue connection starts (`supervise`), or a client's that
 * sets one of them; other clients (the CLI enqueueing, a server) leave the queue's settings as the workers set them.
 */
export interface RunQueueJobOptions {
  /**
   * How often a worker must report that it still executes a run, in seconds (at least 10). A worker that stops
   * reporting (killed, machine gone) loses the run: pg-boss fails the job and another worker resumes the run from
   * its last checkpoint. Default: 30 (with the default supervision interval a dead worker's run moves within 60 s).
   */
  readonly heartbeatSeconds?: number;
  /** Longest a worker may hold one run without a pause at a gate, in seconds (pg-boss caps it at 24 h). Default: 86400. */
  readonly expireInSeconds?: number;
  /**
   * How many times a run's job is retried after its worker died or it hit an infrastructure fault. Default: 5. A job
   * that fails once more goes to the dead letter queue and its run is marked failed (`fail`, with the last error).
   */
  readonly retryLimit?: number;
  /** Delay before such a retry, in seconds. Default: 2. */
  readonly retryDelaySeconds?: number;
}

/** Options of {@link connectRunQueue}. */
export interface ConnectRunQueueOptions extends RunQueueJobOptions {
  /** The queue's PostgreSQL, e.g. `postgres://attractor:secret@db:5432/attractor` (`--queue` / `ATTRACTOR_QUEUE_URL`). */
  readonly url: string;
  /**
   * Run pg-boss's supervision in this process: failing jobs whose worker stopped its heartbeat, starting jobs
   * scheduled for a gate's deadline. Workers do; a CLI that only enqueues does not. Default: false.
   */
  readonly supervise?: boolean;
  /** How often supervision looks for dead workers' jobs, in seconds. Default: 30. */
  readonly superviseIntervalSeconds?: number;
  /** Connections per pool (pg-boss's and the queue table's). Default: 4. */
  readonly maxConnections?: number;
  /** Time source (default run ids). Default: the system clock. */
  readonly clock?: Clock;
  /**
   * The queue key (the CLI reads `ATTRACTOR_QUEUE_KEY`), shared by everyone who enqueues and every worker: runs
   * enqueued through this connection are signed with it (an HMAC of the run id and request), and
   * {@link RunQueue.verifyRun} checks rows against it. At least 16 characters. Default: none (runs are not signed).
   */
  readonly queueKey?: string;
  /**
   * Secret values the enqueuer knows (its API keys, `--secret` variables): a request holding one outside a
   * secret-named key is refused (see {@link maskRunRequest}). Token shapes are refused without being listed here.
   */
  readonly secretValues?: readonly string[];
}

/** What {@link RunQueue.verifyRun} found about a run's request row. */
export type RunSignatureCheck = 'valid' | 'invalid' | 'unsigned' | 'unknown_run';

/** Options of {@link RunQueue.enqueueRun}. */
export interface EnqueueRunOptions extends RunRequest {
  /** The run's id (letters, digits, `.`, `_`, `-`). Default: `<UTC time>-<graph name>-<random>`. */
  readonly runId?: string;
  /** The graph's name, for the default run id. */
  readonly graphName?: string;
}

/** A connection to the run queue. */
export interface RunQueue {
  /** The queue URL without its password, for messages. */
  readonly location: string;
  /** pg-boss, for the worker. Internal. */
  readonly boss: PgBoss;
  /** The pool of the queue's table. Internal. */
  readonly pool: pg.Pool;
  /**
   * Queues a new run; resolves with its id once it is committed. A worker starts it (`startWorker`). The request is
   * stored with its secrets masked ({@link maskRunRequest}) and, with a `queueKey`, signed.
   * @throws {Error} when `runId` is taken or invalid.
   * @throws {SecretInRequestError} when the request holds a secret outside a secret-named key.
   */
  enqueueRun(options: EnqueueRunOptions): Promise<string>;
  /** What the queue knows about a run, or undefined. */
  readRun(runId: string): Promise<QueuedRun | undefined>;
  /** Runs the queue knows, newest first, optionally of one state. */
  listRuns(filter?: { readonly state?: QueuedRunState; readonly limit?: number }): Promise<QueuedRun[]>;
  /**
   * Answers the human gate a suspended run waits at and queues the run again: a worker resumes it with this answer.
   * `text` is an option's key (any case), label or target node id; yes/no; or the text of a freeform question.
   * @throws {AnswerRefusedError} when the run is unknown, waits at no gate, or `text` matches no option.
   */
  answerRun(options: { readonly runId: string; readonly text: string }): Promise<{ readonly answer: Answer }>;
  /**
   * Cancels a run: a queued or waiting run is marked cancelled (no worker will start it); a running one is stopped by
   * its worker within a second (NOTIFY on {@link CANCEL_CHANNEL}), its last checkpoint intact. Resolves with the state
   * the run was in, or undefined for an unknown run.
   */
  cancelRun(options: {
    readonly runId: string;
    readonly reason?: string;
  }): Promise<QueuedRunState | undefined>;
  /**
   * Queues a run that ended in failure or was cancelled again: a worker resumes it from its checkpoint (re-running the
   * failed node, spec §5.3). Resolves with the state it was in.
   * @throws {AnswerRefusedError} (reason `unknown_run` / `not_waiting`) when the queue has no such run or it has not
   *   ended that way.
   */
  resumeRun(options: { readonly runId: string }): Promise<QueuedRunState>;
  /** Sends a run job (the worker: a run handed back, a gate's deadline). Internal. */
  sendJob(data: RunJobData, startAfter?: Date): Promise<void>;
  /**
   * Puts a run job on the dead letter queue at once, with `reason` (the worker: the run's executor crashed too
   * often); the dead letter's worker ends the run with that reason. Internal.
   */
  deadLetter(data: RunJobData & { readonly reason: string }): Promise<void>;
  /** Counts one more crash of the run's executor; resolves with the count since it was enqueued or resumed. Internal. */
  recordCrash(runId: string): Promise<number>;
  /**
   * Checks a run's request row against this connection's `queueKey`: `valid`, `invalid` (changed, or signed with
   * another key), `unsigned`, or `unknown_run`.
   * @throws {Error} when the connection has no `queueKey`.
   */
  verifyRun(runId: string): Promise<RunSignatureCheck>;
  /**
   * Records that a run waits at a gate (state `waiting`, the question, who asked, when, the deadline) and, when
   * `scheduleTimeout`, the job that resumes it at the deadline: both in one transaction. Internal (the worker).
   */
  suspendAtGate(options: {
    readonly runId: string;
    readonly question: Question;
    readonly askedBy: string;
    readonly askedAt: Date;
    readonly deadlineAt: Date | undefined;
    readonly scheduleTimeout: boolean;
  }): Promise<void>;
  /** Sets the state of a run that a worker executes (only while it is `running`). Internal (the worker). */
  settleRun(options: {
    readonly runId: string;
    readonly state: QueuedRunState;
    readonly error?: string;
  }): Promise<void>;
  /**
   * Marks a run failed with `error` when it is still `queued` or `running` (its job went to the dead letter queue),
   * or, with `questionId`, `waiting` at that question (the dead job was that gate's deadline job: no other job would
   * ever apply the deadline). Resolves with false when it is in another state (ended, cancelled, waiting at a gate
   * whose deadline job is still to come). Internal (the worker).
   */
  failRun(options: {
    readonly runId: string;
    readonly error: string;
    readonly questionId?: string;
  }): Promise<boolean>;
  /** Marks a run as executed by `workerId` (state `running`). False when it is not queued, running or waiting. Internal. */
  claimRun(options: { readonly runId: string; readonly workerId: string }): Promise<boolean>;
  /** Closes the connections. */
  close(): Promise<void>;
}

/**
 * Connects to the run queue: starts pg-boss (creating its schema on first use), creates the run queue and the
 * queue's table. Why pg-boss: it keeps jobs in the same PostgreSQL as the run store, so there is one service to run,
 * and the row of a run and its job commit in one transaction.
 *
 * @example
 * const queue = await connectRunQueue({ url: process.env.ATTRACTOR_QUEUE_URL! });
 * const runId = await queue.enqueueRun({ source: dotText, filename: 'review.dot' });
 * await queue.close();
 * @throws {QueueUnavailableError} when the URL is not a PostgreSQL URL or the server cannot be reached or refuses.
 */
export async function connectRunQueue(options: ConnectRunQueueOptions): Promise<RunQueue> {
  const location = describeQueueLocation(options.url);
  const queueKey = options.queueKey;
  const keyProblem = queueKey === undefined ? undefined : queueKeyProblem(queueKey);
  if (keyProblem !== undefined) {
    throw new QueueUnavailableError({
      message: `The queue key (ATTRACTOR_QUEUE_KEY) cannot be used: ${keyProblem}.`,
      location,
      retryable: false,
    });
  }
  const max = options.maxConnections ?? 4;
  const pool = new pg.Pool({ connectionString: options.url, max, connectionTimeoutMillis: 10_000 });
  pool.on('error', () => undefined);
  const boss = new PgBoss({
    connectionString: options.url,
    max,
    connectionTimeoutMillis: 10_000,
    supervise: options.supervise ?? false,
    schedule: options.supervise ?? false,
    superviseIntervalSeconds: options.superviseIntervalSeconds ?? 30,
    // pg-boss fails jobs whose heartbeat stopped on its monitor pass (default every 60 s): as often as supervision.
    monitorIntervalSeconds: options.superviseIntervalSeconds ?? 30,
    useListenNotify: true,
    registerInstance: false,
  });
  // Without a listener an 'error' event would end the process; faults surface through the calls instead.
  boss.on('error', () => undefined);
  try {
    await ensureQueueTables(pool);
    await boss.start();
    const settings = {
      heartbeatSeconds: options.heartbeatSeconds ?? 30,
      expireInSeconds: options.expireInSeconds ?? 86_400,
      retryLimit: options.retryLimit ?? 5,
      retryDelay: options.retryDelaySeconds ?? 2,
    };
    // Jobs that used up their retries land here; a worker marks their runs failed (startWorker).
    if ((await boss.getQueue(DEAD_RUN_QUEUE_NAME)) === null) {
      await boss.createQueue(DEAD_RUN_QUEUE_NAME, {
        policy: 'standard',
        notify: true,
        retryLimit: settings.retryLimit,
        retryDelay: settings.retryDelay,
      });
    }
    if ((await boss.getQueue(RUN_QUEUE_NAME)) === null) {
      // singleton + singletonKey = run id: at most one job of a run is active at a time (the run lock still guards).
      await boss.createQueue(RUN_QUEUE_NAME, {
        policy: 'singleton',
        notify: true,
        deadLetter: DEAD_RUN_QUEUE_NAME,
        ...settings,
      });
    } else if (options.supervise === true || explicitJobOptions(options)) {
      // Workers own the job settings; a client that only enqueues (the CLI, a server) keeps theirs unless told.
      await boss.updateQueue(RUN_QUEUE_NAME, { deadLetter: DEAD_RUN_QUEUE_NAME, ...settings });
    } else {
      await boss.updateQueue(RUN_QUEUE_NAME, { deadLetter: DEAD_RUN_QUEUE_NAME });
    }
  } catch (error) {
    await boss.stop({ graceful: false, timeout: 1000 }).catch(() => undefined);
    await pool.end().catch(() => undefined);
    throw queueUnavailable(error, location);
  }

  const inTransaction = async <T>(body: (client: pg.PoolClient, db: IDatabase) => Promise<T>): Promise<T> => {
    const client = await pool.connect().catch((error: unknown) => {
      throw queueUnavailable(error, location);
    });
    try {
      await client.query('BEGIN');
      const db: IDatabase = { executeSql: (text: string, values?: unknown[]) => client.query(text, values) };
      const result = await body(client, db);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  };
  const send = (db: IDatabase, data: RunJobData, startAfter?: Date) =>
    boss.send(
      RUN_QUEUE_NAME,
      { ...data },
      {
        db,
        singletonKey: data.runId,
        ...(startAfter === undefined ? {} : { startAfter }),
      },
    );

  return {
    location,
    boss,
    pool,
    async enqueueRun(request) {
      const runId =
        request.runId ?? newRunId(request.graphName ?? 'pipeline', (options.clock ?? systemClock).now());
      if (!/^[A-Za-z0-9._-]+$/.test(runId)) {
        throw new Error(`Run id "${runId}" is invalid: use letters, digits, ".", "_" and "-" only.`);
      }
      const stored: RunRequest = maskRunRequest(
        {
          source: request.source,
          ...(request.filename === undefined ? {} : { filename: request.filename }),
          ...(request.context === undefined ? {} : { context: request.context }),
          ...(request.options === undefined ? {} : { options: request.options }),
          ...(request.fork === undefined ? {} : { fork: request.fork }),
        },
        options.secretValues,
      );
      await inTransaction(async (client, db) => {
        const inserted = await client.query<{ request_text: string }>(
          `INSERT INTO ${QUEUE_SCHEMA}.runs (run_id, request, state) VALUES ($1, $2, 'queued') ON CONFLICT DO NOTHING RETURNING request::text AS request_text`,
          [runId, JSON.stringify(stored)],
        );
        const requestText = inserted.rows[0]?.request_text;
        if (inserted.rowCount !== 1 || requestText === undefined)
          throw new Error(`Run id "${runId}" is taken: pick another one.`);
        if (queueKey !== undefined) {
          // Signed as PostgreSQL stores it (jsonb's canonical text), so that a worker reads back the same bytes.
          await client.query(`UPDATE ${QUEUE_SCHEMA}.runs SET signature = $2 WHERE run_id = $1`, [
            runId,
            signRunRequest({ key: queueKey, runId, requestText }),
          ]);
        }
        await send(db, { runId, trigger: 'start' });
      });
      return runId;
    },
    async readRun(runId) {
      const { rows } = await pool.query<QueuedRunRow>(
        `SELECT * FROM ${QUEUE_SCHEMA}.runs WHERE run_id = $1`,
        [runId],
      );
      return rows[0] === undefined ? undefined : toQueuedRun(rows[0]);
    },
    async listRuns(filter = {}) {
      const { rows } = await pool.query<QueuedRunRow>(
        `SELECT * FROM ${QUEUE_SCHEMA}.runs WHERE ($1::text IS NULL OR state = $1) ORDER BY enqueued_at DESC, run_id DESC LIMIT $2`,
        [filter.state ?? null, filter.limit ?? 1000],
      );
      return rows.map(toQueuedRun);
    },
    async answerRun({ runId, text }) {
      return inTransaction(async (client, db) => {
        const { rows } = await client.query<QueuedRunRow>(
          `SELECT * FROM ${QUEUE_SCHEMA}.runs WHERE run_id = $1 FOR UPDATE`,
          [runId],
        );
        const row = rows[0];
        if (row === undefined) {
          throw new AnswerRefusedError({
            runId,
            reason: 'unknown_run',
            message: `The queue has no run "${runId}". List runs with \`attractor runs\`.`,
          });
        }
        const question = row.question;
        if (row.state !== 'waiting' || question === null || question === undefined) {
          throw new AnswerRefusedError({
            runId,
            reason: 'not_waiting',
            message: `Run ${runId} is ${row.state}, not waiting at a human gate; there is nothing to answer.`,
          });
        }
        const match = matchAnswer(question, text);
        if ('error' in match) {
          throw new AnswerRefusedError({
            runId,
            reason: 'no_such_option',
            message: `Gate "${question.stage}" of run ${runId} asks "${question.text}": ${match.error}.`,
          });
        }
        await client.query(
          `UPDATE ${QUEUE_SCHEMA}.runs SET state = 'queued', answers = answers || jsonb_build_object($2::text, $3::jsonb), updated_at = now() WHERE run_id = $1`,
          [runId, question.id, JSON.stringify(match.answer)],
        );
        await send(db, { runId, trigger: 'answer' });
        return { answer: match.answer };
      });
    },
    async cancelRun({ runId, reason }) {
      return inTransaction(async (client) => {
        const { rows } = await client.query<{ state: QueuedRunState }>(
          `SELECT state FROM ${QUEUE_SCHEMA}.runs WHERE run_id = $1 FOR UPDATE`,
          [runId],
        );
        const state = rows[0]?.state;
        if (state === undefined) return undefined;
        if (state === 'queued' || state === 'waiting') {
          await client.query(
            `UPDATE ${QUEUE_SCHEMA}.runs SET state = 'cancelled', ended_at = now(), error = $2, updated_at = now() WHERE run_id = $1`,
            [runId, reason ?? 'cancelled'],
          );
        }
        // Delivered on commit; the worker executing the run (if any) aborts it.
        await client.query('SELECT pg_notify($1, $2)', [
          CANCEL_CHANNEL,
          JSON.stringify({ runId, reason: reason ?? 'cancelled' }),
        ]);
        return state;
      });
    },
    async resumeRun({ runId }) {
      return inTransaction(async (client, db) => {
        const { rows } = await client.query<{ state: QueuedRunState }>(
          `SELECT state FROM ${QUEUE_SCHEMA}.runs WHERE run_id = $1 FOR UPDATE`,
          [runId],
        );
        const state = rows[0]?.state;
        if (state === undefined) {
          throw new AnswerRefusedError({
            runId,
            reason: 'unknown_run',
            message: `The queue has no run "${runId}". List runs with \`attractor runs\`.`,
          });
        }
        if (state !== 'fail' && state !== 'cancelled') {
          throw new AnswerRefusedError({
            runId,
            reason: 'not_waiting',
            message: `Run ${runId} is ${state}; only a failed or cancelled run can be resumed${state === 'waiting' ? ' (answer its gate with `attractor answer`)' : ''}.`,
          });
        }
        await client.query(
          `UPDATE ${QUEUE_SCHEMA}.runs SET state = 'queued', error = NULL, ended_at = NULL, crashes = 0, updated_at = now() WHERE run_id = $1`,
          [runId],
        );
        await send(db, { runId, trigger: 'resume' });
        return state;
      });
    },
    async sendJob(data, startAfter) {
      await inTransaction((_client, db) => send(db, data, startAfter));
    },
    async deadLetter(data) {
      await boss.send(DEAD_RUN_QUEUE_NAME, { ...data });
    },
    async recordCrash(runId) {
      const { rows } = await pool.query<{ crashes: number }>(
        `UPDATE ${QUEUE_SCHEMA}.runs SET crashes = crashes + 1, updated_at = now() WHERE run_id = $1 RETURNING crashes`,
        [runId],
      );
      return rows[0]?.crashes ?? 0;
    },
    async verifyRun(runId) {
      if (queueKey === undefined) throw new Error('verifyRun needs a queue connected with a queueKey.');
      const { rows } = await pool.query<{ request_text: string; signature: string | null }>(
        `SELECT request::text AS request_text, signature FROM ${QUEUE_SCHEMA}.runs WHERE run_id = $1`,
        [runId],
      );
      const row = rows[0];
      if (row === undefined) return 'unknown_run';
      if (row.signature === null) return 'unsigned';
      return verifyRunRequest({
        key: queueKey,
        runId,
        requestText: row.request_text,
        signature: row.signature,
      })
        ? 'valid'
        : 'invalid';
    },
    async suspendAtGate(gate) {
      await inTransaction(async (client, db) => {
        await client.query(
          `UPDATE ${QUEUE_SCHEMA}.runs SET state = 'waiting', question = $2, asked_by = $3, asked_at = $4, deadline_at = $5, updated_at = now() WHERE run_id = $1 AND state = 'running'`,
          [gate.runId, JSON.stringify(gate.question), gate.askedBy, gate.askedAt, gate.deadlineAt ?? null],
        );
        if (gate.scheduleTimeout && gate.deadlineAt !== undefined) {
          await send(
            db,
            { runId: gate.runId, trigger: 'timeout', questionId: gate.question.id },
            gate.deadlineAt,
          );
        }
      });
    },
    async settleRun({ runId, state, error }) {
      const ended = state === 'success' || state === 'fail' || state === 'cancelled';
      await pool.query(
        `UPDATE ${QUEUE_SCHEMA}.runs SET state = $2, error = $3, ended_at = CASE WHEN $4 THEN now() ELSE ended_at END, updated_at = now() WHERE run_id = $1 AND state = 'running'`,
        [runId, state, error ?? null, ended],
      );
    },
    async failRun({ runId, error, questionId }) {
      const result = await pool.query(
        `UPDATE ${QUEUE_SCHEMA}.runs SET state = 'fail', error = $2, ended_at = now(), updated_at = now() WHERE run_id = $1 AND (state IN ('queued', 'running') OR (state = 'waiting' AND question->>'id' = $3::text))`,
        [runId, error, questionId ?? null],
      );
      return result.rowCount === 1;
    },
    async claimRun({ runId, workerId }) {
      const result = await pool.query(
        `UPDATE ${QUEUE_SCHEMA}.runs SET state = 'running', worker = $2, started_at = COALESCE(started_at, now()), updated_at = now() WHERE run_id = $1 AND state IN ('queued', 'running', 'waiting')`,
        [runId, workerId],
      );
      return result.rowCount === 1;
    },
    async close() {
      await boss.stop({ graceful: false, timeout: 1000 }).catch(() => undefined);
      await pool.end().catch(() => undefined);
    },
  };
}

/** Whether any job setting of {@link RunQueueJobOptions} was given. */
function explicitJobOptions(options: RunQueueJobOptions): boolean {
  return (
    options.heartbeatSeconds !== undefined ||
    options.expireInSeconds !== undefined ||
    options.retryLimit !== undefined ||
    options.retryDelaySeconds !== undefined
  );
}

/** `<UTC time>-<graph name>-<6 hex>`, e.g. `2026-12-02T05-00-00Z-review-3fa9c1`. */
function newRunId(graphName: string, nowMs: number): string {
  const stamp = new Date(nowMs)
    .toISOString()
    .replace(/\.\d{3}Z$/, 'Z')
    .replaceAll(':', '-');
  const name = graphName.replace(/[^A-Za-z0-9._-]+/g, '_') || 'pipeline';
  return `${stamp}-${name}-${randomBytes(3).toString('hex')}`;
}
