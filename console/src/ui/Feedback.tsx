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
 * Which field violations a form shows next to its own inputs: field names (a
 * violation of `name`, `name.x` or `name[i]` is shown at `name`), or a test of
 * the violation's field.
 */
type FieldsShown = readonly string[] | ((field: string) => boolean);

/** The input a violation of `field` is shown at (its name), or undefined when the form does not show it. */
function fieldShowing(field: string, fields: FieldsShown | undefined): string | undefined {
  if (!fields) return undefined;
  if (typeof fields === 'function') return fields(field) ? field : undefined;
  return fields.find((name) => field === name || field.startsWith(`${name}.`) || field.startsWith(`${name}[`));
}

/**
 * An error in words (role=alert): the service's message, or its field violations,
 * and the request id to quote to an operator. Never a bare status code; an outage
 * is said as one (the form keeps its input). Violations the form shows at its
 * inputs (`fields`) are not repeated: the panel asks to correct the marked fields
 * and lists only the others. When it appears it scrolls into view and takes
 * focus, so the general error of a long form is seen where the user is, unless
 * focus already sits on a field the error marked invalid.
 */
export function ErrorMessage({ error, title, fields }: { error: unknown; title?: string; fields?: FieldsShown }) {
  if (!error) return null;
  return <ErrorPanel error={error} title={title} fields={fields} />;
}

/** "Correct the marked field." / "Correct the 3 marked fields." (`also`: before a list of further values). */
function markedText(count: number, also: boolean): string {
  const fields = count === 1 ? 'the marked field' : `the ${count} marked fields`;
  return also ? `Correct ${fields}, and check these values:` : `Correct ${fields}.`;
}

function ErrorPanel({ error, title, fields }: { error: unknown; title?: string; fields?: FieldsShown }) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const panel = ref.current;
    if (!panel) return;
    if (document.activeElement?.getAttribute('aria-invalid') === 'true') return;
    panel.scrollIntoView?.({ block: 'nearest' });
    panel.focus({ preventScroll: true });
  }, []);
  const api = error instanceof ApiError ? error : null;
  const outage = outageText(api);
  const violations = !outage && api ? api.fieldViolations : [];
  // The service's message repeats its violations ("Invalid request: email: …"), so with violations it is not shown.
  const listed = violations.filter((v) => fieldShowing(v.field, fields) === undefined);
  const marked = new Set(violations.map((v) => fieldShowing(v.field, fields)).filter((name) => name !== undefined)).size;
  const text = outage ?? (violations.length === 0 ? errorText(error) : marked > 0 ? markedText(marked, listed.length > 0) : 'Check these values:');
  return (
    <div className="error-message" role="alert" tabIndex={-1} ref={ref}>
      {title ? <p className="error-title">{title}</p> : null}
      <p>{text}</p>
      {listed.length > 0 ? (
        <ul>
          {listed.map((v) => (
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
