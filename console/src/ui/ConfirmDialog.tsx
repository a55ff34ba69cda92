import { useId, useRef, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Button } from './Button';
import { ErrorMessage } from './Feedback';
import { useModalDialog } from './useModalDialog';

export interface ConfirmDialogProps {
  open: boolean;
  title: string;
  children?: ReactNode;
  confirmLabel?: string;
  cancelLabel?: string;
  /** A destructive action: the confirm button is red. */
  danger?: boolean;
  busy?: boolean;
  /** The error of the last attempt, shown inside the dialog. */
  error?: unknown;
  onConfirm(): void;
  onCancel(): void;
}

/**
 * A modal confirmation on the native <dialog>: the browser traps focus and makes the
 * page inert; focus starts on Cancel (the safe choice), Escape cancels, and focus
 * returns to what had it before (to the main landmark when that is gone, e.g. the
 * row of a deleted item).
 */
export function ConfirmDialog({ open, title, children, confirmLabel, cancelLabel, danger = false, busy = false, error, onConfirm, onCancel }: ConfirmDialogProps) {
  const { t } = useTranslation('common');
  const cancelRef = useRef<HTMLButtonElement>(null);
  const ref = useModalDialog(open, cancelRef);
  const titleId = useId();
  const bodyId = useId();

  return (
    <dialog
      ref={ref}
      className="dialog"
      aria-labelledby={titleId}
      aria-describedby={children ? bodyId : undefined}
      onCancel={(event) => {
        event.preventDefault();
        if (!busy) onCancel();
      }}
    >
      {open ? (
        <form
          method="dialog"
          onSubmit={(event) => {
            event.preventDefault();
            onConfirm();
          }}
        >
          <h2 id={titleId}>{title}</h2>
          {children ? <div id={bodyId} className="dialog-body">{children}</div> : null}
          <ErrorMessage error={error} />
          <div className="dialog-actions">
            <Button ref={cancelRef} onClick={onCancel} disabled={busy}>{cancelLabel ?? t('cancel')}</Button>
            <Button type="submit" variant={danger ? 'danger' : 'primary'} busy={busy}>{confirmLabel ?? t('confirm')}</Button>
          </div>
        </form>
      ) : null}
    </dialog>
  );
}
