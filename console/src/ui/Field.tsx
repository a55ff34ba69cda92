import { useId, type InputHTMLAttributes, type ReactNode, type SelectHTMLAttributes, type TextareaHTMLAttributes } from 'react';

/**
 * What a Field hands to its control: the id its label points at and the ARIA wiring of hint and error.
 * @public (exported with the kit, console/src/ui/index.ts)
 */
export interface ControlProps {
  id: string;
  'aria-invalid'?: boolean;
  'aria-describedby'?: string;
}

export interface FieldProps {
  label: ReactNode;
  /** The error to show under the control, e.g. `apiError.violation('email')` or a react-hook-form message. */
  error?: string;
  hint?: ReactNode;
  /** Marks the label as required (the control still needs its own `required`). */
  required?: boolean;
  className?: string;
  children: (control: ControlProps) => ReactNode;
}

/**
 * A labelled control with its hint and inline error:
 * `<Field label="Email" error={err}>{(p) => <TextInput {...p} {...register('email')} />}</Field>`.
 */
export function Field({ label, error, hint, required, className, children }: FieldProps) {
  const id = useId();
  const hintId = hint ? `${id}-hint` : undefined;
  const errorId = error ? `${id}-error` : undefined;
  const describedBy = [hintId, errorId].filter(Boolean).join(' ') || undefined;
  return (
    <div className={['field', error ? 'field-invalid' : '', className].filter(Boolean).join(' ')}>
      <label htmlFor={id}>
        {label}
        {required ? <span className="required" aria-hidden="true"> *</span> : null}
      </label>
      {hint ? <p className="hint" id={hintId}>{hint}</p> : null}
      {children({ id, 'aria-invalid': error ? true : undefined, 'aria-describedby': describedBy })}
      {error ? <p className="field-error" id={errorId}>{error}</p> : null}
    </div>
  );
}

export function TextInput({ className, ...rest }: InputHTMLAttributes<HTMLInputElement> & { ref?: React.Ref<HTMLInputElement> }) {
  return <input type="text" {...rest} className={['input', className].filter(Boolean).join(' ')} />;
}

export function TextArea({ className, ...rest }: TextareaHTMLAttributes<HTMLTextAreaElement> & { ref?: React.Ref<HTMLTextAreaElement> }) {
  return <textarea rows={4} {...rest} className={['input', 'textarea', className].filter(Boolean).join(' ')} />;
}

export function Select({ className, options, children, ...rest }: SelectHTMLAttributes<HTMLSelectElement> & {
  ref?: React.Ref<HTMLSelectElement>;
  options?: Array<{ value: string; label: string }>;
}) {
  return (
    <select {...rest} className={['input', 'select', className].filter(Boolean).join(' ')}>
      {options?.map((o) => (
        <option key={o.value} value={o.value}>{o.label}</option>
      ))}
      {children}
    </select>
  );
}

/** A checkbox with its label after it, a hint and an inline error. */
export function Checkbox({ label, hint, error, className, ...rest }: Omit<InputHTMLAttributes<HTMLInputElement>, 'type'> & {
  ref?: React.Ref<HTMLInputElement>;
  label: ReactNode;
  hint?: ReactNode;
  error?: string;
}) {
  const id = useId();
  const inputId = rest.id ?? id;
  const describedBy = [hint ? `${id}-hint` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ') || undefined;
  return (
    <div className={['field', 'field-check', error ? 'field-invalid' : '', className].filter(Boolean).join(' ')}>
      <input type="checkbox" {...rest} id={inputId} aria-invalid={error ? true : undefined} aria-describedby={describedBy} />
      <label htmlFor={inputId}>{label}</label>
      {hint ? <p className="hint" id={`${id}-hint`}>{hint}</p> : null}
      {error ? <p className="field-error" id={`${id}-error`}>{error}</p> : null}
    </div>
  );
}
