import { useState } from 'react';
import { Button } from './Button';

/**
 * Copies `value` to the clipboard and says so (in the button and to screen readers).
 * `name` is the button's accessible name where several copy buttons show the same
 * `label` (a table's rows); it should start with that label.
 */
export function CopyButton({ value, label = 'Copy', name }: { value: string; label?: string; name?: string }) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value);
      setState('copied');
    } catch {
      setState('failed');
    }
    setTimeout(() => setState('idle'), 2500);
  };
  return (
    <>
      <Button onClick={() => void copy()} aria-label={state === 'copied' ? undefined : name}>{state === 'copied' ? 'Copied' : label}</Button>
      <span className="visually-hidden" role="status">
        {state === 'copied' ? 'Copied to the clipboard' : state === 'failed' ? 'Copying failed: select the text and copy it' : ''}
      </span>
    </>
  );
}
