/**
 * The sign-in dialog: asks for the server token, checks it against the server before closing, and says so when the
 * server refuses it (a wrong token never just brings back an empty dialog).
 */
import { useRef, useState } from 'preact/hooks';
import { ApiRequestError, apiFetch, auth } from './api.js';
import { ErrorNote } from './error-note.js';
import { useModalDialog } from './use-modal-dialog.js';

/** Props of {@link SignIn}. */
export interface SignInProps {
  readonly open: boolean;
  /** Why the dialog opened again (a refused token), shown above the field. */
  readonly problem: string | undefined;
}

/** The modal token dialog. */
export function SignIn(props: SignInProps) {
  const input = useRef<HTMLInputElement>(null);
  const dialog = useModalDialog(props.open, () => input.current?.focus());
  const [error, setError] = useState<string | undefined>();
  const [checking, setChecking] = useState(false);

  const shown = error ?? props.problem;
  const submit = async (event: Event) => {
    event.preventDefault();
    const value = input.current?.value.trim() ?? '';
    if (value === '') {
      setError('Paste the token first.');
      return;
    }
    setChecking(true);
    try {
      await apiFetch('/server', {}, value);
      setError(undefined);
      if (input.current !== null) input.current.value = '';
      auth.set(value);
    } catch (failure) {
      setError(
        failure instanceof ApiRequestError && failure.status === 401
          ? 'The server did not accept that token. Check for a missing character, or use the token `attractor serve` printed (or the one given with --token / ATTRACTOR_SERVER_TOKEN).'
          : (failure as Error).message,
      );
      input.current?.select();
    } finally {
      setChecking(false);
    }
  };

  return (
    <dialog
      ref={dialog}
      id="token-dialog"
      aria-labelledby="token-title"
      onCancel={(event) => event.preventDefault()}
    >
      <form id="token-form" onSubmit={submit}>
        <h2 id="token-title">Sign in</h2>
        <p>
          Paste the token <code>attractor serve</code> printed. It is kept in this tab only.
        </p>
        <label for="token-input">Server token</label>
        <input
          ref={input}
          type="password"
          id="token-input"
          name="token"
          autoComplete="off"
          aria-invalid={shown !== undefined}
          aria-describedby={shown === undefined ? undefined : 'token-error'}
        />
        <ErrorNote message={shown} id="token-error" />
        <div class="actions">
          <button type="submit" class="button" id="token-submit" disabled={checking}>
            {checking ? 'Checking…' : 'Sign in'}
          </button>
        </div>
      </form>
    </dialog>
  );
}
