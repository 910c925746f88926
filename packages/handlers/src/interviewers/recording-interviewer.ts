import type { Answer, Interviewer, Question } from '@attractor/engine';

/** One recorded exchange. */
export interface InterviewRecording {
  readonly question: Question;
  readonly answer: Answer;
}

/** A RecordingInterviewer with its recordings. */
export interface RecordingInterviewer extends Interviewer {
  /** The question-answer pairs so far, in order (a live array; copy it to keep a snapshot). */
  readonly recordings: readonly InterviewRecording[];
}

/**
 * Creates the RecordingInterviewer of spec §6.4: wraps another interviewer and records every question with its
 * answer, for replay, debugging and audit trails. A question whose inner `ask` rejects is not recorded.
 *
 * @example
 * const recording = createRecordingInterviewer(createAutoApproveInterviewer());
 * await runPipeline({ graph, registry, logsRoot, interviewer: recording });
 * recording.recordings.map((entry) => entry.answer.value);
 */
export function createRecordingInterviewer(inner: Interviewer): RecordingInterviewer {
  const recordings: InterviewRecording[] = [];
  const interviewer: RecordingInterviewer = {
    recordings,
    async ask(question, options) {
      const answer = await inner.ask(question, options);
      recordings.push({ question, answer });
      return answer;
    },
  };
  if (inner.inform !== undefined) interviewer.inform = (message, stage) => inner.inform?.(message, stage);
  return interviewer;
}
