import { useEffect, useRef, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { ApiError } from '../api/client';
import { i18n } from '../i18n';

/** A polite "Loading…" status (screen readers hear it; nothing flashes for fast answers). */
export function Loading({ label }: { label?: string }) {
  const { t } = useTranslation('common');
  return (
    <p className="loading" role="status">
      <span className="spinner" aria-hidden="true" />
      {label ?? t('loading')}
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

/**
 * The service's message in the page's language: its English text as it is (often more
 * specific), else the `reasons` catalogue's sentence for its reason when there is one,
 * else the English text.
 */
function serviceText(error: ApiError): string {
  const key = `reasons:${error.reason ?? ''}`;
  return i18n.language !== 'en' && error.reason && i18n.exists(key) ? i18n.t(key) : error.message;
}

/** The words of any error: an ApiError's message and field violations, or a thrown Error's message. */
export function errorText(error: unknown): string {
  if (error instanceof ApiError) return serviceText(error);
  if (error instanceof Error) return error.message;
  return i18n.t('common:error.generic');
}

/** What an outage or a wait means for the user: the service unreachable (status 0) or unavailable (502, 503, 504), or too many attempts (429, with the wait). */
function outageText(error: ApiError | null): string | null {
  if (!error) return null;
  if (error.status === 0) return i18n.t('common:error.unreachable');
  if (error.status === 502 || error.status === 503 || error.status === 504) return i18n.t('common:error.unavailable');
  if (error.status === 429 && error.retryAfterSeconds !== undefined) return i18n.t('common:error.tooMany', { message: serviceText(error), wait: waitText(error.retryAfterSeconds) });
  return null;
}

/** A wait in words, in the page's language (Intl): "1 second", "40 seconds", "2 minutes" (rounded up), "1 hour". */
function waitText(seconds: number): string {
  const unit = (n: number, name: 'second' | 'minute' | 'hour') => new Intl.NumberFormat(i18n.language, { style: 'unit', unit: name, unitDisplay: 'long' }).format(n);
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
  return also ? i18n.t('common:error.markedFieldAlso', { count }) : i18n.t('common:error.markedField', { count });
}

function ErrorPanel({ error, title, fields }: { error: unknown; title?: string; fields?: FieldsShown }) {
  const ref = useRef<HTMLDivElement>(null);
  const { t } = useTranslation('common');
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
  const text = outage ?? (violations.length === 0 ? errorText(error) : marked > 0 ? markedText(marked, listed.length > 0) : t('error.checkValues'));
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
      {api?.requestId ? <p className="request-id">{t('error.requestId')} <code>{api.requestId}</code></p> : null}
    </div>
  );
}
