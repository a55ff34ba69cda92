import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Button } from './Button';

/**
 * Copies `value` to the clipboard and says so (in the button and to screen readers).
 * `name` is the button's accessible name where several copy buttons show the same
 * `label` (a table's rows); it should start with that label.
 */
export function CopyButton({ value, label, name }: { value: string; label?: string; name?: string }) {
  const { t } = useTranslation('common');
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
      <Button onClick={() => void copy()} aria-label={state === 'copied' ? undefined : name}>{state === 'copied' ? t('copy.copied') : label ?? t('copy.label')}</Button>
      <span className="visually-hidden" role="status">
        {state === 'copied' ? t('copy.done') : state === 'failed' ? t('copy.failed') : ''}
      </span>
    </>
  );
}
