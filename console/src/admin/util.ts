import { useEffect, useState } from 'react';
import { i18n } from '../i18n';

/** `value`, updated only after it stayed unchanged for `ms` (search boxes: one request per pause, not per key). */
export function useDebounced<T>(value: T, ms = 300): T {
  const [debounced, setDebounced] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setDebounced(value), ms);
    return () => clearTimeout(timer);
  }, [value, ms]);
  return debounced;
}

/** Unix seconds (an int64 string) as a local date and time; "0" is never. */
export function formatTime(unix: string, never = i18n.t('admin:never')): string {
  const n = Number(unix);
  if (!Number.isFinite(n) || n <= 0) return never;
  return new Date(n * 1000).toLocaleString();
}

/** An ISO 8601 date-time (the API's `format: date-time`) as a local date and time. */
export function formatDateTime(iso: string): string {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleString();
}

/** Builds a query string from defined, non-empty values. */
export function queryOf(params: Record<string, string | number | boolean | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== '') out[k] = String(v);
  return out;
}
