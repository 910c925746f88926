/**
 * Stamps, redacts, records and delivers pipeline events (spec §9.6): to listeners of an eventemitter3 emitter,
 * to async iterators, and to the run store's `events.jsonl`.
 */
import { EventEmitter } from 'eventemitter3';
import type { Clock } from './clock.js';
import { maskEvent } from './mask-checkpoint.js';
import type { PipelineEvent, PipelineEventType } from './pipeline-event.js';
import { createSecretMasker, type SecretMasker } from './redact-secrets.js';
import type { RunStore } from './run-store.js';

/**
 * The events of a run by `type`, plus `'event'` for every event. Use with `run.events.on(...)`.
 *
 * @example
 * run.events.on('stage.completed', (event) => console.log(event.nodeId, event.status));
 */
export type PipelineEventMap = {
  [TType in PipelineEventType]: (event: Extract<PipelineEvent, { type: TType }>) => void;
} & {
  event: (event: PipelineEvent) => void;
};

/** An event before stamping. */
export type UnstampedEvent = { readonly type: PipelineEventType } & Record<string, unknown>;

/**
 * Where the events of a run are delivered: an eventemitter3 emitter, async iterators and an optional callback.
 * One hub serves a whole `startPipeline` call, across `loop_restart` run directories. Internal to the engine.
 */
export class EventHub {
  readonly emitter = new EventEmitter<PipelineEventMap>();
  readonly #iterators = new Set<(event: PipelineEvent | undefined) => void>();
  readonly #forward: ((event: PipelineEvent) => void) | undefined;
  #closed = false;

  constructor(forward?: (event: PipelineEvent) => void) {
    this.#forward = forward;
  }

  /** Delivers a stamped event to every consumer. A throwing listener does not reach the engine. */
  deliver(event: PipelineEvent): void {
    for (const push of this.#iterators) push(event);
    try {
      this.#forward?.(event);
    } catch {
      // Listener faults are the listener's problem; the run goes on (the engine never crashes because of a plug-in).
    }
    try {
      this.emitter.emit(event.type, event as never);
      this.emitter.emit('event', event);
    } catch {
      // Same as above, for emitter listeners.
    }
  }

  /**
   * An async iterator over the events delivered from now on; it ends when the run ends. Events are buffered, so a
   * slow consumer sees every event.
   */
  iterate(): AsyncIterableIterator<PipelineEvent> {
    const queue: (PipelineEvent | undefined)[] = [];
    let wake: (() => void) | undefined;
    let done = this.#closed;
    const push = (event: PipelineEvent | undefined) => {
      queue.push(event);
      wake?.();
      wake = undefined;
    };
    if (!done) this.#iterators.add(push);
    const iterator: AsyncIterableIterator<PipelineEvent> = {
      [Symbol.asyncIterator]: () => iterator,
      next: async () => {
        while (true) {
          if (queue.length > 0) {
            const event = queue.shift();
            if (event === undefined) {
              done = true;
              return { done: true, value: undefined };
            }
            return { done: false, value: event };
          }
          if (done) return { done: true, value: undefined };
          await new Promise<void>((resolve) => {
            wake = resolve;
          });
        }
      },
      return: async () => {
        done = true;
        this.#iterators.delete(push);
        return { done: true, value: undefined };
      },
    };
    return iterator;
  }

  /** Ends every iterator after the events already queued. */
  close(): void {
    this.#closed = true;
    for (const push of this.#iterators) push(undefined);
    this.#iterators.clear();
  }
}

/** Options of {@link EventBus}. */
export interface EventBusOptions {
  readonly runId: string;
  readonly clock: Clock;
  readonly hub: EventHub;
  /**
   * Where events are persisted; none for an in-memory run. The bus masks every event with `secrets` itself, so this
   * may be the store beneath a masking store of the same masker (`eventSinkOf`).
   */
  readonly store?: Pick<RunStore, 'appendEvents'>;
  /** The last `seq` already written to the store (resume). Default: 0. */
  readonly lastSeq?: number;
  /** Masks secrets in every event. Default: a masker of token shapes and secret-named keys only. */
  readonly secrets?: SecretMasker;
  /** Prepended to every event's branch path (a child pipeline's events carry `child:<node>`). */
  readonly basePath?: readonly string[];
}

/** Stamps, redacts and records the events of one run directory, and hands them to the hub. Internal to the engine. */
export class EventBus {
  #seq: number;
  #pending: PipelineEvent[] = [];
  #flushScheduled = false;
  readonly #options: EventBusOptions;
  readonly #secrets: SecretMasker;
  // Several events share a millisecond; format each timestamp once.
  #stampMs = Number.NaN;
  #stampIso = '';

  constructor(options: EventBusOptions) {
    this.#options = options;
    this.#seq = options.lastSeq ?? 0;
    this.#secrets = options.secrets ?? createSecretMasker();
  }

  /** The `seq` of the last event emitted. */
  get lastSeq(): number {
    return this.#seq;
  }

  /** Stamps, redacts, queues for persistence and delivers an event. */
  emit(event: UnstampedEvent, branchPath: readonly string[] = []): PipelineEvent {
    this.#seq += 1;
    const nowMs = this.#options.clock.now();
    if (nowMs !== this.#stampMs) {
      this.#stampMs = nowMs;
      this.#stampIso = new Date(nowMs).toISOString();
    }
    const basePath = this.#options.basePath;
    const path = basePath === undefined || basePath.length === 0 ? branchPath : [...basePath, ...branchPath];
    // The stamp (sequence number, clock, run id, branch ids) is structure, not data: only the event is masked.
    const stamped: Record<string, unknown> = { ...maskEvent(event, this.#secrets) };
    stamped.seq = this.#seq;
    stamped.timestamp = this.#stampIso;
    stamped.runId = this.#options.runId;
    if (path.length > 0) stamped.branchPath = path;
    const redacted = stamped as unknown as PipelineEvent;
    this.#pending.push(redacted);
    this.#options.hub.deliver(redacted);
    return redacted;
  }

  /**
   * Writes the queued events to the store. When the store refuses them (disk full, directory gone), they stay queued
   * for the next flush and the returned promise rejects with the error.
   * @returns a promise when the store appends asynchronously or refused the events; undefined when there was nothing
   *   to write or the store wrote it synchronously (the file store), so that the caller need not wait a turn.
   */
  flush(): Promise<void> | undefined {
    if (this.#pending.length === 0) return undefined;
    const batch = this.#pending;
    this.#pending = [];
    let appended: void | Promise<void>;
    try {
      appended = this.#options.store?.appendEvents(batch);
    } catch (error) {
      this.#pending = [...batch, ...this.#pending];
      return Promise.reject(error);
    }
    // A store that appends synchronously (the file store) costs no promise: the caller awaits only a real one.
    if (appended === undefined) return undefined;
    return Promise.resolve(appended).catch((error: unknown) => {
      this.#pending = [...batch, ...this.#pending];
      throw error;
    });
  }

  /**
   * Starts a flush without waiting for it (events a handler emits while its stage runs). A failure is not lost: the
   * events stay queued and the engine's next awaited flush, at the end of the stage, reports it as a run fault.
   */
  flushSoon(): void {
    this.flush()?.catch(() => {});
  }

  /**
   * Starts a flush once the current turn of the event loop is over (`setImmediate`), so that everything emitted until
   * then goes to the store in one append: a stage's `stage.started` is written as soon as its handler waits for
   * anything, and together with the stage's other events when the handler finishes without waiting (a no-op stage).
   * A failure is kept for the next awaited flush, as with {@link EventBus.flushSoon}.
   */
  flushLater(): void {
    if (this.#flushScheduled) return;
    this.#flushScheduled = true;
    setImmediate(() => {
      this.#flushScheduled = false;
      this.flushSoon();
    });
  }
}
