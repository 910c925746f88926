/**
 * The writes of one run store, in call order, on one connection of their own in pipeline mode (`pg`'s
 * `pipeline: true`): a statement is sent as soon as it is issued, without waiting for the ones before it, and the
 * server executes them in the order they arrive. So the engine can go on while its events and status files travel;
 * a stage waits for little more than its checkpoint, which is sent once everything before it has completed.
 *
 * A multi-statement transaction (a streamed blob) runs alone on the connection: later writes wait for it, and when it
 * fails it is rolled back and only its caller sees the error. The first single statement that fails is kept: every
 * write issued once it is known rejects with it (statements already on their way may still land), and the
 * checkpoint is sent only after every earlier write completed, never after a failed one, so a checkpoint never
 * claims events or files that are not there.
 */
import type pg from 'pg';
import { prepared } from './prepared.js';

/** Ordered, pipelined writes of one store. */
export interface OrderedWriter {
  /** Sends one statement after every write issued before it; resolves once it completed. */
  send(sql: string, params: readonly unknown[]): Promise<void>;
  /**
   * Sends one statement only once every write issued before it completed, and not at all when one of them failed
   * (rejecting with that failure): for a write that vouches for the earlier ones, the checkpoint.
   */
  sendAfterEarlier(sql: string, params: readonly unknown[]): Promise<void>;
  /**
   * Runs a read on the connection, after every write issued before it (the server executes them in order, so the
   * read sees them without waiting for them first). Its failure is its own.
   */
  query<TRow extends pg.QueryResultRow>(
    sql: string,
    params: readonly unknown[],
  ): Promise<pg.QueryResult<TRow>>;
  /** Whether a write was issued (reads go through the connection from then on; before, through the pool). */
  hasWritten(): boolean;
  /** Runs `work` alone on the connection once every earlier write completed (transactions); later writes wait. */
  exclusive<TResult>(work: (client: pg.Client) => Promise<TResult>): Promise<TResult>;
  /** Resolves once every write issued so far completed; rejects with the first write that failed. */
  settled(): Promise<void>;
  /** Waits for the writes issued so far, then closes the connection (a later write opens a new one). */
  close(): Promise<void>;
}

/**
 * Creates the writer of a store.
 * @param connect opens the connection (in pipeline mode, session settings applied); called on the first write and
 *   again after the connection was lost or closed
 */
export function createOrderedWriter(connect: () => Promise<pg.Client>): OrderedWriter {
  let connection: Promise<pg.Client> | undefined;
  /** Settles once every write issued so far has been handed to the connection (or has run, for `exclusive`). */
  let handedOver: Promise<void> = Promise.resolve();
  /** Settles once the last write issued has completed (the connection completes them in order). */
  let lastDone: Promise<void> = Promise.resolve();
  let failure: { error: unknown } | undefined;
  let written = false;

  const open = (): Promise<pg.Client> => {
    if (connection === undefined) {
      const opening = connect().then((client) => {
        const lost = () => {
          if (connection === opening) connection = undefined;
        };
        client.on('error', lost);
        client.on('end', lost);
        return client;
      });
      connection = opening;
      opening.catch(() => {
        if (connection === opening) connection = undefined;
      });
    }
    return connection;
  };

  const record = (error: unknown) => {
    failure ??= { error };
  };

  /** `sticky`: a failure fails every later write (a lost statement); else only this one (a rolled-back transaction). */
  const enqueue = <TResult>(
    sticky: boolean,
    run: (earlierDone: Promise<void>) => Promise<{ done: Promise<TResult> }>,
  ): Promise<TResult> => {
    const previous = lastDone;
    const turn = handedOver.then(() => {
      if (failure !== undefined) throw failure.error;
      return run(previous);
    });
    handedOver = turn.then(
      () => undefined,
      () => undefined,
    );
    const done = turn.then((started) => started.done);
    lastDone = done.then(
      () => undefined,
      (error: unknown) => {
        if (sticky) record(error);
      },
    );
    // Completion in issue order: a write counts as done only when the ones before it are.
    return previous.then(() => done);
  };

  return {
    send(sql, params) {
      written = true;
      return enqueue(true, async () => {
        const client = await open();
        return { done: client.query(prepared(sql, params)).then(() => undefined) };
      });
    },
    sendAfterEarlier(sql, params) {
      written = true;
      return enqueue(true, async (earlierDone) => {
        await earlierDone;
        if (failure !== undefined) throw failure.error;
        const client = await open();
        return { done: client.query(prepared(sql, params)).then(() => undefined) };
      });
    },
    query<TRow extends pg.QueryResultRow>(sql: string, params: readonly unknown[]) {
      return enqueue(false, async () => {
        const client = await open();
        return { done: client.query<TRow>(prepared(sql, params)) };
      });
    },
    hasWritten() {
      return written;
    },
    exclusive(work) {
      written = true;
      return enqueue(false, async (earlierDone) => {
        await earlierDone;
        if (failure !== undefined) throw failure.error;
        const client = await open();
        // Awaited here, so that later writes are handed over only after the transaction ended.
        const result = await work(client);
        return { done: Promise.resolve(result) };
      });
    },
    async settled() {
      await handedOver;
      await lastDone;
      if (failure !== undefined) throw failure.error;
    },
    async close() {
      await handedOver;
      await lastDone;
      const client = await connection?.catch(() => undefined);
      connection = undefined;
      await client?.end().catch(() => undefined);
    },
  };
}
