/**
 * The engine's interviewer wrapper (spec §6.5, §9.6): emits `interview.*` events and applies question timeouts.
 */
import type { Clock } from './clock.js';
import type { UnstampedEvent } from './event-bus.js';
import type { Answer, Interviewer, Question } from './interviewer.js';

/** Options of {@link wrapInterviewer}. */
export interface WrapInterviewerOptions {
  /** The run's interviewer; when absent, `ask` rejects with an explanation. */
  readonly inner: Interviewer | undefined;
  readonly clock: Clock;
  /** Emits an event on the run's bus (with the stage's branch path). */
  readonly emit: (event: UnstampedEvent) => void;
  /** The stage's signal: aborting it abandons the question. */
  readonly abortSignal: AbortSignal;
}

/** The answer used when a question times out without a default (spec §6.5). */
export const TIMEOUT_ANSWER: Answer = { value: 'timeout' };

/**
 * Wraps an interviewer for one stage: `interview.started` before asking, then `interview.completed` or, when
 * `question.timeoutMs` passes first, `interview.timeout` with `question.default` (or `{ value: 'timeout' }`) as
 * the answer; the inner `ask` is then aborted through its signal.
 */
export function wrapInterviewer(options: WrapInterviewerOptions): Interviewer {
  const { inner, clock, emit } = options;
  const ask = async (question: Question, askOptions?: { abortSignal?: AbortSignal }): Promise<Answer> => {
    if (inner === undefined) {
      throw Object.assign(
        new Error(
          `Node "${question.stage}" needs a human answer, but the run has no interviewer. Pass \`interviewer\` to runPipeline (the CLI uses its console interviewer; use --auto-approve for unattended runs).`,
        ),
        { retryable: false },
      );
    }
    const startedMs = clock.now();
    emit({ type: 'interview.started', question, stage: question.stage });
    const controller = new AbortController();
    const signals = [options.abortSignal, controller.signal];
    if (askOptions?.abortSignal !== undefined) signals.push(askOptions.abortSignal);
    const signal = AbortSignal.any(signals);
    const answered = inner
      .ask(question, { abortSignal: signal })
      .then((answer) => ({ kind: 'answer' as const, answer }));
    const stageAborted = new Promise<never>((_, reject) => {
      const stageSignal =
        askOptions?.abortSignal === undefined
          ? options.abortSignal
          : AbortSignal.any([options.abortSignal, askOptions.abortSignal]);
      if (stageSignal.aborted) reject(stageSignal.reason);
      else stageSignal.addEventListener('abort', () => reject(stageSignal.reason), { once: true });
    });
    stageAborted.catch(() => undefined);
    const racers: Promise<{ kind: 'answer'; answer: Answer } | { kind: 'timeout' }>[] = [
      answered,
      stageAborted,
    ];
    if (question.timeoutMs !== undefined && question.timeoutMs >= 0) {
      racers.push(
        clock.sleep(question.timeoutMs, signal).then(
          () => ({ kind: 'timeout' as const }),
          () => new Promise<never>(() => undefined),
        ),
      );
    }
    try {
      const result = await Promise.race(racers);
      if (result.kind === 'answer') {
        emit({
          type: 'interview.completed',
          question,
          answer: result.answer,
          durationMs: clock.now() - startedMs,
        });
        return result.answer;
      }
      const answer = question.default ?? TIMEOUT_ANSWER;
      emit({
        type: 'interview.timeout',
        question,
        stage: question.stage,
        durationMs: clock.now() - startedMs,
        answer,
      });
      return answer;
    } finally {
      controller.abort(new Error('question no longer pending'));
      answered.catch(() => undefined);
    }
  };
  const wrapped: Interviewer = { ask };
  if (inner?.askMultiple !== undefined) {
    wrapped.askMultiple = async (questions, askOptions) => {
      const answers: Answer[] = [];
      for (const question of questions) answers.push(await ask(question, askOptions));
      return answers;
    };
  }
  if (inner?.inform !== undefined) wrapped.inform = (message, stage) => inner.inform?.(message, stage);
  return wrapped;
}
