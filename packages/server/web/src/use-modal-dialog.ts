/** Shows a `<dialog>` modally while a flag is set, and closes it when the flag clears. */
import type { RefObject } from 'preact';
import { useEffect, useRef } from 'preact/hooks';

/**
 * A ref for a `<dialog>` that is shown with `showModal()` while `open` is true (then `onShown` runs, to move focus
 * into it) and closed when `open` turns false.
 */
export function useModalDialog(open: boolean, onShown: () => void): RefObject<HTMLDialogElement | null> {
  const dialog = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const element = dialog.current;
    if (element === null) return;
    if (open && !element.open) {
      element.showModal();
      onShown();
    } else if (!open && element.open) element.close();
  }, [open]);
  return dialog;
}
