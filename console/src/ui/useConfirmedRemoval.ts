import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';

/**
 * The state of "remove this item?" behind a ConfirmDialog: `ask(item)` opens it,
 * `dialog` is the dialog's open/busy/error/confirm/cancel wiring, `item` what is
 * being removed. `remove` runs on confirmation; on success the dialog closes and
 * `onRemoved` gets its result and the item; cancelling forgets the last attempt's error.
 */
export function useConfirmedRemoval<T, R = unknown>(remove: (item: T) => Promise<R>, onRemoved: (result: R, item: T) => void) {
  const [item, setItem] = useState<T | null>(null);
  const mutation = useMutation({
    mutationFn: remove,
    onSuccess: (result, removed) => {
      setItem(null);
      onRemoved(result, removed);
    },
  });
  return {
    item,
    /** Stable across renders (React's state setter), so memoised table columns may use it. */
    ask: setItem as (next: T) => void,
    dialog: {
      open: item !== null,
      busy: mutation.isPending,
      error: mutation.error,
      onCancel: () => {
        setItem(null);
        mutation.reset();
      },
      onConfirm: () => {
        if (item !== null) mutation.mutate(item);
      },
    },
  };
}
