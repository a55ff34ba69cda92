import type { ReactNode } from 'react';
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

/**
 * An error in words (role=alert): the service's message, its field violations and
 * the request id to quote to an operator. Never a bare status code.
 */
export function ErrorMessage({ error, title }: { error: unknown; title?: string }) {
  if (!error) return null;
  const api = error instanceof ApiError ? error : null;
  return (
    <div className="error-message" role="alert">
      {title ? <p className="error-title">{title}</p> : null}
      <p>{errorText(error)}</p>
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
