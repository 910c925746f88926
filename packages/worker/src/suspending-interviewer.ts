/**
 * The interviewer of a run executed by a worker (issue 18 "A waiting gate holds no worker"): a question with a
 * stored answer is answered at once; a question whose deadline passed gets its default; any other question is
 * persisted with its deadline and the run is suspended, freeing the worker. `answerRun` or the deadline's job
 * queues the run again, and the gate asks the same question (same id: node, visit, attempt) once more.
 */
import { type Answer, type Clock, type Interviewer, type Question, TIMEOUT_ANSWER } from '@attractor/engine';
import type { QueuedRun } from './queued-run.js';

/** Options of {@link createSuspendingInterviewer}. */
export interface SuspendingInterviewerOptions {
  /** Reads the run's row of the queue: its answers and the question it waits at. */
  readonly readRun: (runId: string) => Promise<QueuedRun | undefined>;
  readonly runId: string;
  /** The worker asking, recorded with the question. */
  readonly workerId: string;
  readonly clock: Clock;
  /** Persists the question (state `waiting`) and, for a new deadline, schedules the job that applies it. */
  readonly persist: (options: {
    readonly question: Question;
    readonly askedAt: Date;
    readonly deadlineAt: Date | undefined;
    readonly newDeadline: boolean;
  }) => Promise<void>;
  /** Stops the run (its signal); the walk ends before the gate completes and the checkpoint still points at it. */
  readonly suspend: (reason: string) => void;
  /**
   * Called when a question's deadline passed while the run was suspended, just before `ask` resolves with the
   * question's default: the worker logs that answer as `interview.timeout`, as a live gate's timeout is.
   */
  readonly onTimeout?: (question: Question, askedAt: Date) => void;
}

/** An interviewer that never keeps a worker waiting. See the module comment. */
export function createSuspendingInterviewer(options: SuspendingInterviewerOptions): Interviewer {
  return {
    async ask(question) {
      const row = await options.readRun(options.runId);
      const answer: Answer | undefined = row?.answers[question.id];
      if (answer !== undefined) return answer;
      const nowMs = options.clock.now();
      const askedAtBefore =
        row?.question?.id === question.id && row.askedAt !== undefined ? new Date(row.askedAt) : undefined;
      const deadlineBefore = row?.deadlineAt === undefined ? undefined : new Date(row.deadlineAt);
      if (askedAtBefore !== undefined && deadlineBefore !== undefined && deadlineBefore.getTime() <= nowMs) {
        // The deadline passed while the run was suspended (or its worker died): the timeout applies now.
        options.onTimeout?.(question, askedAtBefore);
        return question.default ?? TIMEOUT_ANSWER;
      }
      const askedBefore = askedAtBefore !== undefined;
      const askedAt = askedAtBefore ?? new Date(nowMs);
      const deadlineAt =
        question.timeoutMs === undefined ? undefined : new Date(askedAt.getTime() + question.timeoutMs);
      await options.persist({
        question,
        askedAt,
        deadlineAt,
        newDeadline: !askedBefore && deadlineAt !== undefined,
      });
      options.suspend(
        `suspended: waiting for an answer at gate "${question.stage}" (attractor answer ${options.runId} <key>)`,
      );
      // The run's signal ends the question; the engine's wrapper rejects on it.
      return new Promise<Answer>(() => undefined);
    },
  };
}
