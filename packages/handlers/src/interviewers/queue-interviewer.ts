import type { Answer, Interviewer } from '@attractor/engine';

/** Options of {@link createQueueInterviewer}. */
export interface QueueInterviewerOptions {
  /**
   * Answers in the order they will be given. A string is an answer value: an option key (`A`), a label, a target
   * node id, `yes`/`no`, or free text (it is also the answer's `text`).
   */
  readonly answers: readonly (Answer | string)[];
  /**
   * Asked once the queue is empty (e.g. a console interviewer after the CLI's `--answer` values ran out).
   * Default: none, so an empty queue answers SKIPPED (spec §6.4).
   */
  readonly fallback?: Interviewer;
}

/** A QueueInterviewer with the answers not yet used. */
export interface QueueInterviewer extends Interviewer {
  /** How many queued answers are left. */
  remaining(): number;
}

/**
 * Creates the QueueInterviewer of spec §6.4: answers from a pre-filled queue, then SKIPPED (or the fallback).
 * For deterministic tests, replay, and the CLI's `--answer` flags.
 *
 * @example
 * const interviewer = createQueueInterviewer({ answers: ['R', 'A'] }); // request changes, then approve
 */
export function createQueueInterviewer(options: QueueInterviewerOptions): QueueInterviewer {
  const queue = [...options.answers];
  return {
    remaining: () => queue.length,
    async ask(question, askOptions) {
      const next = queue.shift();
      if (next === undefined) {
        if (options.fallback !== undefined) return options.fallback.ask(question, askOptions);
        return { value: 'skipped' };
      }
      return typeof next === 'string' ? { value: next, text: next } : next;
    },
  };
}
