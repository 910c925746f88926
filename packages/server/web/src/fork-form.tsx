/**
 * "Fork from here" for one checkpoint: context values to set (a JSON object, checked before it is sent) and,
 * optionally, an edited DOT source; the server's refusal is shown as it is.
 */
import { useState } from 'preact/hooks';
import { forkContextKeyProblem } from '../../src/fork-context-key-problem.js';
import { apiText, runPath } from './api.js';
import { ErrorNote } from './error-note.js';

/** What a fork is started with besides its checkpoint. */
export interface ForkEdits {
  readonly dot?: string;
  readonly context?: Record<string, unknown>;
}

/**
 * The context edits typed in the editor, or why they cannot be sent: not JSON, not an object, or a key a fork
 * cannot set (the server's own rule). Empty text means no edits.
 */
export function parseContextEdits(
  text: string,
): { readonly context: Record<string, unknown> | undefined } | { readonly problem: string } {
  if (text.trim() === '') return { context: undefined };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { problem: `The context values are not JSON: ${(error as Error).message}` };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return { problem: 'The context values must be a JSON object of key: value, e.g. {"choice": "right"}.' };
  for (const key of Object.keys(value)) {
    const problem = forkContextKeyProblem(key);
    if (problem !== undefined) return { problem: `The context values: ${problem}.` };
  }
  return { context: Object.keys(value).length === 0 ? undefined : (value as Record<string, unknown>) };
}

/**
 * The fork form of the checkpoint after `at` (`node`, its latest visit, or `node@visit`). `idPrefix` makes its
 * element ids unique on the page (`<prefix>-fork-form`, `-fork-context`, `-fork-edit-dot`, `-fork-dot`,
 * `-fork-button`, `-fork-error`): the History tab and the stage pane each have one.
 */
export function ForkForm({
  runId,
  at,
  onFork,
  idPrefix,
}: {
  runId: string;
  at: string;
  /** Starts the fork; rejects with the server's refusal. */
  onFork: (from: string, edits: ForkEdits) => Promise<void>;
  idPrefix: string;
}) {
  const id = (name: string) => `${idPrefix}-${name}`;
  const [contextText, setContextText] = useState('{}');
  const [dot, setDot] = useState<string | undefined>();
  const [editDot, setEditDot] = useState(false);
  const [error, setError] = useState<string | undefined>();
  const [forking, setForking] = useState(false);

  const submit = (event: Event) => {
    event.preventDefault();
    const parsed = parseContextEdits(contextText);
    if ('problem' in parsed) {
      setError(parsed.problem);
      document.getElementById(id('fork-context'))?.focus();
      return;
    }
    setForking(true);
    setError(undefined);
    const edits: ForkEdits = {
      ...(parsed.context === undefined ? {} : { context: parsed.context }),
      ...(editDot && dot !== undefined ? { dot } : {}),
    };
    onFork(at, edits).then(
      () => setForking(false),
      (failure: unknown) => {
        setForking(false);
        setError((failure as Error).message);
      },
    );
  };

  return (
    <form class="fork-form" id={id('fork-form')} onSubmit={submit} aria-labelledby={id('fork-title')}>
      <h4 id={id('fork-title')}>
        Fork after <code>{at}</code>
      </h4>
      <label for={id('fork-context')}>
        Context values to set (a JSON object; the keys given replace the checkpoint's values)
      </label>
      <textarea
        id={id('fork-context')}
        class="fork-context"
        rows={5}
        spellcheck={false}
        value={contextText}
        aria-describedby={error === undefined ? undefined : id('fork-error')}
        onInput={(event) => setContextText((event.currentTarget as HTMLTextAreaElement).value)}
      />
      <label class="check">
        <input
          type="checkbox"
          id={id('fork-edit-dot')}
          checked={editDot}
          onChange={(event) => {
            const checked = (event.currentTarget as HTMLInputElement).checked;
            setEditDot(checked);
            if (checked && dot === undefined)
              apiText(runPath(runId, '/source')).then(setDot, (failure: unknown) =>
                setError((failure as Error).message),
              );
          }}
        />{' '}
        Edit the pipeline too
      </label>
      {editDot && (
        <>
          <label for={id('fork-dot')}>DOT of the fork (the run's own; change it, then fork)</label>
          <textarea
            id={id('fork-dot')}
            class="fork-dot"
            rows={12}
            spellcheck={false}
            value={dot ?? ''}
            disabled={dot === undefined}
            onInput={(event) => setDot((event.currentTarget as HTMLTextAreaElement).value)}
          />
        </>
      )}
      <div>
        <button type="submit" class="button" id={id('fork-button')} disabled={forking}>
          Fork
        </button>
      </div>
      <ErrorNote message={error} id={id('fork-error')} preformatted />
    </form>
  );
}
