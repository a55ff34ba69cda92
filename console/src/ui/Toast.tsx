import { createContext, useCallback, useContext, useMemo, useState, type ReactNode } from 'react';

type ToastKind = 'success' | 'error' | 'info';
interface ToastItem {
  id: number;
  kind: ToastKind;
  message: string;
}

const ToastContext = createContext<((message: string, kind?: ToastKind) => void) | null>(null);

/** The page's status region (aria-live): short confirmations such as "Passkey renamed." */
export function ToastProvider({ children }: { children: ReactNode }) {
  const [items, setItems] = useState<ToastItem[]>([]);
  const show = useCallback((message: string, kind: ToastKind = 'success') => {
    const id = Date.now() + Math.random();
    setItems((all) => [...all.slice(-2), { id, kind, message }]);
    setTimeout(() => setItems((all) => all.filter((t) => t.id !== id)), 6000);
  }, []);
  const value = useMemo(() => show, [show]);
  return (
    <ToastContext.Provider value={value}>
      {children}
      <div className="toasts" role="status" aria-live="polite">
        {items.map((t) => (
          <p key={t.id} className={`toast toast-${t.kind}`}>{t.message}</p>
        ))}
      </div>
    </ToastContext.Provider>
  );
}

/** `const toast = useToast(); toast('Saved.')` */
export function useToast(): (message: string, kind?: ToastKind) => void {
  const show = useContext(ToastContext);
  if (!show) throw new Error('useToast() outside <ToastProvider>');
  return show;
}
