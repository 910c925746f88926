/**
 * The waiting human gates of a run, at the top of the run page: the question, one button per option with its
 * accelerator key (pressing the key answers, unless focus is in a text field), the timeout counting down and the
 * default it will take. Free-form questions get a text field. Answers go to the server; errors show inline.
 */
import { useEffect, useLayoutEffect, useState } from 'preact/hooks';
import { apiJson, type PendingQuestion, runPath } from './api.js';
import { ErrorNote } from './error-note.js';

/** Props of {@link GatePanel}. */
export interface GatePanelProps {
  readonly runId: string;
  /** Ids of the questions the event stream says are waiting (the panel refetches when they change). */
  readonly questionIds: string;
}

/** The gates panel (renders nothing when no question waits). */
export function GatePanel({ runId, questionIds }: GatePanelProps) {
  const [questions, setQuestions] = useState<PendingQuestion[]>([]);
  const [error, setError] = useState<string | undefined>();
  const [now, setNow] = useState(() => Date.now());

  useEffect(() => {
    if (questionIds === '') {
      setQuestions([]);
      return;
    }
    apiJson<{ questions: PendingQuestion[] }>(runPath(runId, '/questions')).then(
      (body) => setQuestions(body.questions),
      (failure: unknown) => setError((failure as Error).message),
    );
  }, [runId, questionIds]);

  const timed = questions.some((pending) => pending.question.timeoutMs !== undefined);
  useEffect(() => {
    if (!timed) return;
    const timer = setInterval(() => setNow(Date.now()), 250);
    return () => clearInterval(timer);
  }, [timed]);

  const answer = async (pending: PendingQuestion, body: { value: string } | { text: string }) => {
    setError(undefined);
    try {
      await apiJson(runPath(runId, `/questions/${encodeURIComponent(pending.id)}/answer`), {
        method: 'POST',
        body: JSON.stringify(body),
      });
      setQuestions((current) => current.filter((candidate) => candidate.id !== pending.id));
    } catch (failure) {
      setError((failure as Error).message);
    }
  };

  const first = questions[0];
  // A layout effect: the key listener is in place by the time the question's buttons are on screen, so a key pressed
  // as soon as the gate shows is never lost.
  useLayoutEffect(() => {
    if (first === undefined) return;
    const keys = choicesOf(first);
    const onKey = (event: KeyboardEvent) => {
      if (event.ctrlKey || event.metaKey || event.altKey || event.repeat) return;
      const target = event.target as HTMLElement | null;
      if (target?.closest('input, textarea, select, [contenteditable="true"]')) return;
      // A key pressed in a modal dialog (the cancel confirmation) is the dialog's.
      if (target?.closest('dialog[open]')) return;
      const choice = keys.find((candidate) => candidate.key.toLowerCase() === event.key.toLowerCase());
      if (choice === undefined) return;
      event.preventDefault();
      void answer(first, { value: choice.key });
    };
    addEventListener('keydown', onKey);
    return () => removeEventListener('keydown', onKey);
  });

  if (questions.length === 0 && error === undefined) return null;
  return (
    <section class="card gate" id="gate-panel" aria-labelledby="gate-title">
      <h2 id="gate-title">Waiting for you</h2>
      {questions.map((pending, index) => {
        const { question } = pending;
        const deadline =
          question.timeoutMs === undefined ? undefined : Date.parse(pending.askedAt) + question.timeoutMs;
        const left = deadline === undefined ? undefined : Math.max(0, deadline - now);
        const fallbackOption = question.default?.selectedOption;
        const fallback =
          fallbackOption === undefined
            ? question.default?.value
            : `${stripKey(fallbackOption.label)}” (${fallbackOption.key}`;
        return (
          <div class="question" key={pending.id} data-question={pending.id}>
            <p class="question-text" id={`question-${index}`}>
              {question.text}
            </p>
            <p class="muted small">
              Node <code>{question.stage}</code>
              {left !== undefined && (
                <>
                  {' · '}
                  <span class="countdown" role="timer" aria-live="off">
                    {Math.ceil(left / 1000)} s left
                  </span>
                  {', then '}
                  {fallback === undefined ? (
                    'the gate retries'
                  ) : fallbackOption === undefined ? (
                    <>it takes “{fallback}”</>
                  ) : (
                    <>it takes “{fallback})</>
                  )}
                </>
              )}
            </p>
            {question.type === 'freeform' ? (
              <FreeformAnswer onAnswer={(text) => answer(pending, { text })} />
            ) : (
              <fieldset class="choices" aria-labelledby={`question-${index}`}>
                {choicesOf(question).map((choice) => (
                  <button
                    type="button"
                    class="button choice"
                    key={choice.key}
                    data-answer={choice.key}
                    aria-keyshortcuts={index === 0 ? choice.key : undefined}
                    onClick={() => answer(pending, { value: choice.key })}
                  >
                    <kbd>{choice.key}</kbd> {choice.label}
                  </button>
                ))}
              </fieldset>
            )}
            {index === 0 && question.type !== 'freeform' && (
              <p class="muted small">Press the key shown on an option to choose it.</p>
            )}
          </div>
        );
      })}
      <ErrorNote message={error} />
    </section>
  );
}

/** A question's answer buttons: its options (labels without their key), or Yes/No for a yes/no question. */
export function choicesOf(
  pending: PendingQuestion | Pick<PendingQuestion['question'], 'type' | 'options'>,
): readonly { key: string; label: string }[] {
  const question = 'question' in pending ? pending.question : pending;
  if (question.options.length > 0)
    return question.options.map((option) => ({ key: option.key, label: stripKey(option.label) }));
  if (question.type === 'yes_no' || question.type === 'confirmation')
    return [
      { key: 'Y', label: 'Yes' },
      { key: 'N', label: 'No' },
    ];
  return [];
}

/** `[A] Approve` → `Approve`, `A) Approve` → `Approve` (the key is shown separately). */
function stripKey(label: string): string {
  return label.replace(/^\s*(?:\[[^\]]+\]|[A-Za-z0-9][)\]:-])\s*/, '') || label;
}

function FreeformAnswer({ onAnswer }: { onAnswer: (text: string) => void }) {
  const [text, setText] = useState('');
  return (
    <form
      class="freeform"
      onSubmit={(event) => {
        event.preventDefault();
        if (text.trim() !== '') onAnswer(text);
      }}
    >
      <label for="freeform-answer">Your answer</label>
      <textarea
        id="freeform-answer"
        rows={3}
        value={text}
        onInput={(event) => setText(event.currentTarget.value)}
      />
      <button type="submit" class="button">
        Send
      </button>
    </form>
  );
}
