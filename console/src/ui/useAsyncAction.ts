import { useState } from 'react';

export interface AsyncAction {
  /** The `what` of the action running now, '' when none is. */
  busyWith: string;
  busy: boolean;
  /** What the last action threw (null once another starts). */
  error: unknown;
  setError: (error: unknown) => void;
  /** Clears the error, marks `what` busy, runs the action and keeps what it throws. */
  run: (action: () => Promise<void>, what?: string) => Promise<void>;
}

/**
 * A form's asynchronous submit: its busy state and its last error, shared by the
 * sign-in pages. `initialError` gives the error to show before any action (a
 * failed return from a social provider); `onError` sees each error first (the
 * resend cooldown it carries, for example).
 */
export function useAsyncAction(options: { initialError?: () => unknown; onError?: (error: unknown) => void } = {}): AsyncAction {
  const [busyWith, setBusyWith] = useState('');
  const [error, setError] = useState<unknown>(() => options.initialError?.() ?? null);
  const run = async (action: () => Promise<void>, what = 'submit') => {
    setBusyWith(what);
    setError(null);
    try {
      await action();
    } catch (e) {
      options.onError?.(e);
      setError(e);
    } finally {
      setBusyWith('');
    }
  };
  return { busyWith, busy: busyWith !== '', error, setError, run };
}
