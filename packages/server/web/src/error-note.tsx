/** An inline error message (never `alert()`): announced to screen readers, rendered only when there is one. */

/** Props of {@link ErrorNote}. */
export interface ErrorNoteProps {
  readonly message: string | undefined;
  readonly id?: string;
  /** Keep line breaks and spacing (multi-line server messages such as pipeline diagnostics). */
  readonly preformatted?: boolean;
}

/** The error `message`, or nothing when it is undefined. */
export function ErrorNote({ message, id, preformatted }: ErrorNoteProps) {
  if (message === undefined) return null;
  return preformatted === true ? (
    <pre class="error" id={id} role="alert">
      {message}
    </pre>
  ) : (
    <p class="error" id={id} role="alert">
      {message}
    </p>
  );
}
