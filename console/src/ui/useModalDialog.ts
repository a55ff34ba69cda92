import { useEffect, useRef, type RefObject } from 'react';

/**
 * Opens a native <dialog> as a modal while `open` (the browser traps focus and
 * makes the page inert), focuses `initialFocus` in it, and on closing gives focus
 * back to what had it before — to the main landmark when that is gone (the row of
 * a deleted item, say). Answers the ref to put on the <dialog>.
 */
export function useModalDialog(open: boolean, initialFocus: RefObject<HTMLElement | null>): RefObject<HTMLDialogElement | null> {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog || !open || dialog.open) return undefined;
    const previous = document.activeElement as HTMLElement | null;
    dialog.showModal();
    initialFocus.current?.focus();
    return () => {
      if (dialog.open) dialog.close();
      if (previous?.isConnected) previous.focus();
      else document.getElementById('main')?.focus();
    };
  }, [open, initialFocus]);
  return ref;
}
