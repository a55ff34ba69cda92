import type { ButtonHTMLAttributes } from 'react';

/** The button's look. @public (exported with the kit, console/src/ui/index.ts) */
export type ButtonVariant = 'primary' | 'secondary' | 'danger' | 'link';

export interface ButtonProps extends ButtonHTMLAttributes<HTMLButtonElement> {
  variant?: ButtonVariant;
  /** Shows the button busy (disabled, aria-busy) while an action runs. */
  busy?: boolean;
  ref?: React.Ref<HTMLButtonElement>;
}

/** A button; `type="button"` unless told otherwise, so it never submits a form by accident. */
export function Button({ variant = 'secondary', busy = false, type = 'button', className, disabled, children, ...rest }: ButtonProps) {
  return (
    <button
      {...rest}
      type={type}
      className={['btn', `btn-${variant}`, className].filter(Boolean).join(' ')}
      disabled={disabled || busy}
      aria-busy={busy || undefined}
    >
      {children}
    </button>
  );
}
