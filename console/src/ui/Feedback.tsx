import { useEffect, useRef, type ReactNode } from 'react';
import { ApiError } from '../api/client';

/** A polite "Loading…" status (screen readers hear it; nothing flashes for fast answers). */
export function Loading({ label = 'Loading…' }: { label?: string }) {
  return (
    <p className="loading" role="status">
      <span className="spinner" aria-hidden="true" />
      {label}
    </p>
  );
}

export function EmptyState({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <div className="empty">
      <p className="empty-title">{title}</p>
      {children ? <div className="empty-body">{children}</div> : null}
    </div>
  );
}

/** The words of any error: an ApiError's message and field violations, or a thrown Error's message. */
export function errorText(error: unknown): string {
  if (error instanceof ApiError) return error.message;
  if (error instanceof Error) return error.message;
  return 'Something went wrong.';
}

/** What an outage or a wait means for the user: the service unreachable (status 0) or unavailable (502, 503, 504), or too many attempts (429, with the wait). */
function outageText(error: ApiError | null): string | null {
  if (!error) return null;
  if (error.status === 0) return 'The service cannot be reached. Check your connection; what you typed is kept.';
  if (error.status === 502 || error.status === 503 || error.status === 504) return 'The service is unavailable right now. Try again in a moment; what you typed is kept.';
  if (error.status === 429 && error.retryAfterSeconds !== undefined) return `${error.message} You can try again in ${waitText(error.retryAfterSeconds)}.`;
  return null;
}

/** A wait in words: "1 second", "40 seconds", "2 minutes" (rounded up), "1 hour". */
function waitText(seconds: number): string {
  const unit = (n: number, one: string) => `${n} ${one}${n === 1 ? '' : 's'}`;
  if (seconds < 60) return unit(Math.max(1, Math.ceil(seconds)), 'second');
  if (seconds < 3600) return unit(Math.ceil(seconds / 60), 'minute');
  return unit(Math.ceil(seconds / 3600), 'hour');
}

/**
 * An error in words (role=alert): the service's message, its field violations and
 * the request id to quote to an operator. Never a bare status code; an outage is
 * said as one (the form keeps its input). When it appears it scrolls into view and
 * takes focus, so the general error of a long form is seen where the user is,
 * unless focus already sits on a field the error marked invalid.
 */
export function ErrorMessage({ error, title }: { error: unknown; title?: string }) {
  if (!error) return null;
  return <ErrorPanel error={error} title={title} />;
}

function ErrorPanel({ error, title }: { error: unknown; title?: string }) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const panel = ref.current;
    if (!panel) return;
    if (document.activeElement?.getAttribute('aria-invalid') === 'true') return;
    panel.scrollIntoView?.({ block: 'nearest' });
    panel.focus({ preventScroll: true });
  }, []);
  const api = error instanceof ApiError ? error : null;
  return (
    <div className="error-message" role="alert" tabIndex={-1} ref={ref}>
      {title ? <p className="error-title">{title}</p> : null}
      <p>{outageText(api) ?? errorText(error)}</p>
      {api && api.fieldViolations.length > 0 ? (
        <ul>
          {api.fieldViolations.map((v) => (
            <li key={`${v.field}:${v.description}`}>
              <code>{v.field}</code>: {v.description}
            </li>
          ))}
        </ul>
      ) : null}
      {api?.requestId ? <p className="request-id">Request id: <code>{api.requestId}</code></p> : null}
    </div>
  );
}
