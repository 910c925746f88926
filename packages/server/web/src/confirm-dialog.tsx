/**
 * A modal confirmation in the app's own dialog style (the sign-in dialog's): a title, what the action does, and two
 * buttons. Focus starts on the safe choice; Escape and the safe button dismiss it.
 */
import { useRef, useState } from 'preact/hooks';
import { useModalDialog } from './use-modal-dialog.js';

/** Props of {@link ConfirmDialog}. */
export interface ConfirmDialogProps {
  /** The id of the `<dialog>`; its parts get ids from it (`<id>-title`, `<id>-text`, `<id>-confirm`, `<id>-dismiss`). */
  readonly id: string;
  readonly open: boolean;
  readonly title: string;
  /** What confirming does, below the title. */
  readonly text: string;
  /** The label of the button that does it (a danger button). */
  readonly confirmLabel: string;
  /** The label of the button that does nothing. */
  readonly dismissLabel: string;
  readonly onConfirm: () => void;
  /** Called when the dialog closes without confirming (Escape or the dismiss button). */
  readonly onDismiss: () => void;
}

/** The confirmation dialog: shown modally while `open`. */
export function ConfirmDialog(props: ConfirmDialogProps) {
  const dismiss = useRef<HTMLButtonElement>(null);
  const dialog = useModalDialog(props.open, () => dismiss.current?.focus());

  return (
    <dialog
      ref={dialog}
      id={props.id}
      class="confirm-dialog"
      aria-labelledby={`${props.id}-title`}
      aria-describedby={`${props.id}-text`}
      // Escape closes a modal dialog natively (a `cancel`, then `close`); the state follows.
      onClose={() => {
        if (props.open) props.onDismiss();
      }}
    >
      <div class="confirm-body">
        <h2 id={`${props.id}-title`}>{props.title}</h2>
        <p id={`${props.id}-text`}>{props.text}</p>
        <div class="actions">
          <button
            type="button"
            class="button ghost"
            id={`${props.id}-dismiss`}
            ref={dismiss}
            onClick={props.onDismiss}
          >
            {props.dismissLabel}
          </button>
          <button type="button" class="button danger" id={`${props.id}-confirm`} onClick={props.onConfirm}>
            {props.confirmLabel}
          </button>
        </div>
      </div>
    </dialog>
  );
}

/** Props of {@link ConfirmedButton}. */
export interface ConfirmedButtonProps extends Omit<ConfirmDialogProps, 'id' | 'open' | 'onDismiss'> {
  /** `cancel` gives the button `cancel-button` and its dialog `cancel-dialog`. */
  readonly id: string;
  /** The button's label. */
  readonly label: string;
  readonly disabled: boolean;
}

/** A danger button that asks first: {@link ConfirmDialog} opens, and only its confirm button calls `onConfirm`. */
export function ConfirmedButton(props: ConfirmedButtonProps) {
  const [open, setOpen] = useState(false);
  return (
    <>
      <button
        type="button"
        class="button danger"
        id={`${props.id}-button`}
        disabled={props.disabled}
        onClick={() => setOpen(true)}
      >
        {props.label}
      </button>
      <ConfirmDialog
        id={`${props.id}-dialog`}
        open={open}
        title={props.title}
        text={props.text}
        confirmLabel={props.confirmLabel}
        dismissLabel={props.dismissLabel}
        onConfirm={() => {
          setOpen(false);
          props.onConfirm();
        }}
        onDismiss={() => setOpen(false)}
      />
    </>
  );
}
