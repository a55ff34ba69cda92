import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Fragment, useId, useState, type FormEvent, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useParams, useSearchParams } from 'react-router';
import { api, seg } from '../../api/client';
import { useAuth } from '../../auth/AuthContext';
import { Button, EmptyState, ErrorMessage, Field, Loading, Page, Select, TextInput } from '../../ui';
import { useNarrow } from '../../ui/DataTable';
import { apiQueryOf, filtersOf, paramsOf, rangeError, typeOptions, type AuditEvent, type AuditEventType, type AuditFilters } from './auditFilters';
import './audit.css';

/**
 * The sector's audit trail, newest first (GET /api/v1/sectors/{sectorID}/audit-events):
 * each event's time, type and outcome, actor and target, with its other fields
 * in an expandable row. The filters live in the URL query, so a filtered view can
 * be linked; the pages follow the API's cursor (newer / older).
 */

const PAGE_SIZE = 50;

type ListAuditEvents = { events: AuditEvent[]; nextCursor: string };

const KINDS = new Set(['user', 'apiToken', 'system', 'anonymous', 'sector', 'tenant']);

/** A time as the viewer's local date and time, its ISO form in `dateTime` and the tooltip. */
function EventTime({ unix }: { unix: string }) {
  const date = new Date(Number(unix) * 1000);
  if (Number.isNaN(date.getTime())) return <>{unix}</>;
  const iso = date.toISOString();
  return (
    <time dateTime={iso} title={iso}>
      {date.toLocaleString()}
    </time>
  );
}

/** An actor or a target: its kind and id; a user of this sector links to their page. */
function Party({ party, sectorID, inSector, side }: { party: AuditEvent['actor']; sectorID: string; inSector: boolean; side: 'actor' | 'target' }) {
  const { t } = useTranslation('audit');
  if (!party.kind) return <span className="muted">{t('none')}</span>;
  const kind = KINDS.has(party.kind) ? t(`kinds.${party.kind}`) : party.kind;
  if (!party.id) return <span>{kind}</span>;
  return (
    <span className="audit-party">
      <span className="audit-party__kind">{kind}</span>{' '}
      {party.kind === 'user' && inSector ? (
        <Link to={`/console/sectors/${seg(sectorID)}/users/${seg(party.id)}`} aria-label={t(`userOf.${side}`, { id: party.id })}>
          <code>{party.id}</code>
        </Link>
      ) : (
        <code>{party.id}</code>
      )}
    </span>
  );
}

/** The fields of an event the table's columns do not show. */
function otherFields(e: AuditEvent): Record<string, unknown> {
  return { id: e.id, outcome: e.outcome, reason: e.reason, sectorID: e.sectorID, clientAddress: e.clientAddress, requestId: e.requestId, details: e.details };
}

/** A column of the events: its header and what an event shows under it. */
interface EventColumn {
  label: string;
  cell: (e: AuditEvent) => ReactNode;
}

const detailsIdOf = (e: AuditEvent) => `audit-event-${e.id}`;

/**
 * The events as a table, each opened event's other fields in a row below it; on a
 * phone-narrow screen as DataTable's cards (each field under its header), the opened
 * fields at the foot of the card, so nothing scrolls sideways.
 */
function EventList({ rows, busy, columns, open }: { rows: AuditEvent[]; busy: boolean; columns: EventColumn[]; open: string | null }) {
  const { t } = useTranslation('audit');
  const narrow = useNarrow();
  const captionId = useId();
  const caption = t('caption');
  const details = (e: AuditEvent) => <pre className="audit-details">{JSON.stringify(otherFields(e), null, 2)}</pre>;
  if (narrow) {
    return (
      <>
        <p id={captionId} className="visually-hidden">{caption}</p>
        <ul className="table-cards audit-cards" aria-labelledby={captionId} aria-busy={busy || undefined}>
          {rows.map((e) => (
            <li key={e.id} className="table-card">
              <dl>
                {columns.map((c) => (
                  <div key={c.label} className="table-card__item">
                    <dt>{c.label}</dt>
                    <dd>{c.cell(e)}</dd>
                  </div>
                ))}
              </dl>
              {open === e.id ? <div id={detailsIdOf(e)} className="audit-card-details">{details(e)}</div> : null}
            </li>
          ))}
        </ul>
      </>
    );
  }
  return (
    <div className="table-scroll">
      <table className="table audit-table" aria-busy={busy || undefined}>
        <caption className="visually-hidden">{caption}</caption>
        <thead>
          <tr>
            {columns.map((c) => (
              <th key={c.label} scope="col">{c.label}</th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((e) => (
            <Fragment key={e.id}>
              <tr>
                {columns.map((c) => (
                  <td key={c.label} data-label={c.label}>{c.cell(e)}</td>
                ))}
              </tr>
              {open === e.id ? (
                <tr className="audit-details-row">
                  <td colSpan={columns.length} id={detailsIdOf(e)}>{details(e)}</td>
                </tr>
              ) : null}
            </Fragment>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function FilterForm({ filters, onApply }: { filters: AuditFilters; onApply: (filters: AuditFilters) => void }) {
  const { t } = useTranslation('audit');
  const [draft, setDraft] = useState<AuditFilters>(filters);
  const [shown, setShown] = useState<AuditFilters>(filters);
  // The URL changed under the form (a link, back/forward): the form follows it.
  if (shown !== filters) {
    setShown(filters);
    setDraft(filters);
  }
  const invalid = rangeError(draft);
  const set = (key: keyof AuditFilters) => (e: { target: { value: string } }) => setDraft((d) => ({ ...d, [key]: e.target.value }));
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!invalid) onApply({ ...draft, actor: draft.actor.trim(), target: draft.target.trim() });
  };
  const empty: AuditFilters = { type: '', actor: '', target: '', from: '', to: '' };
  const any = Object.values(filters).some(Boolean);
  return (
    <form className="audit-filters" aria-label={t('filterEvents')} onSubmit={submit}>
      <div className="toolbar">
        <Field label={t('type')}>
          {(p) => (
            <Select {...p} value={draft.type} onChange={(e) => setDraft((d) => ({ ...d, type: e.target.value as AuditEventType | '' }))}>
              <option value="">{t('anyType')}</option>
              {typeOptions().map((o) => (
                <option key={o.value} value={o.value}>
                  {o.label}
                </option>
              ))}
            </Select>
          )}
        </Field>
        <Field label={t('actorID')}>{(p) => <TextInput {...p} value={draft.actor} onChange={set('actor')} spellCheck={false} autoComplete="off" />}</Field>
        <Field label={t('targetID')}>{(p) => <TextInput {...p} value={draft.target} onChange={set('target')} spellCheck={false} autoComplete="off" />}</Field>
        <Field label={t('fromDay')}>{(p) => <TextInput {...p} type="date" value={draft.from} onChange={set('from')} max={draft.to || undefined} />}</Field>
        <Field label={t('toDay')} error={invalid}>
          {(p) => <TextInput {...p} type="date" value={draft.to} onChange={set('to')} min={draft.from || undefined} />}
        </Field>
      </div>
      <div className="form-actions">
        <Button type="submit" variant="primary" disabled={!!invalid}>
          {t('apply')}
        </Button>
        <Button onClick={() => onApply(empty)} disabled={!any}>
          {t('clear')}
        </Button>
      </div>
      <p className="hint">{t('daysHint', { zone: Intl.DateTimeFormat().resolvedOptions().timeZone })}</p>
    </form>
  );
}

export default function AuditPage() {
  const { t } = useTranslation('audit');
  const { sectorID = '' } = useParams();
  const { me } = useAuth();
  const [searchParams, setSearchParams] = useSearchParams();
  const query = searchParams.toString();
  const [filters, setFilters] = useState(() => filtersOf(searchParams));
  const [filtersQuery, setFiltersQuery] = useState(query);
  // The cursor of each page visited, the current one last ('' is the newest page); a new filter starts over.
  const [cursors, setCursors] = useState<string[]>(['']);
  const [open, setOpen] = useState<string | null>(null);
  if (filtersQuery !== query) {
    setFiltersQuery(query);
    setFilters(filtersOf(searchParams));
    setCursors(['']);
    setOpen(null);
  }
  const cursor = cursors[cursors.length - 1];
  const apiQuery = { ...apiQueryOf(filters), cursor: cursor || undefined, pageSize: PAGE_SIZE };
  const events = useQuery({
    queryKey: ['audit-events', sectorID, apiQuery],
    queryFn: () => api.get<ListAuditEvents>(`/api/v1/sectors/${seg(sectorID)}/audit-events`, apiQuery),
    placeholderData: keepPreviousData,
  });
  const rows = events.data?.events;
  const next = events.data?.nextCursor ?? '';

  // Users known to be of this sector: the users events here are about, and the admin when it is their own sector.
  const sectorUsers = new Set<string>((rows ?? []).filter((e) => e.target.kind === 'user' && e.target.id).map((e) => e.target.id));
  if (me && me.sectorID === sectorID) sectorUsers.add(me.sub);

  const columns: EventColumn[] = [
    { label: t('time'), cell: (e) => <EventTime unix={e.occurredAt} /> },
    {
      label: t('type'),
      cell: (e) => (
        <>
          <code className="event-type">{e.type}</code>
          {e.outcome === 'failure' ? (
            <>
              {' '}
              <span className="badge badge-warn">{t('failure')}</span>
            </>
          ) : null}
        </>
      ),
    },
    { label: t('actor'), cell: (e) => <Party party={e.actor} sectorID={sectorID} inSector={sectorUsers.has(e.actor.id)} side="actor" /> },
    { label: t('target'), cell: (e) => <Party party={e.target} sectorID={sectorID} inSector={e.target.kind === 'user'} side="target" /> },
    {
      label: t('details'),
      cell: (e) => {
        const expanded = open === e.id;
        return (
          <Button variant="link" aria-expanded={expanded} aria-controls={expanded ? detailsIdOf(e) : undefined} onClick={() => setOpen(expanded ? null : e.id)}>
            {expanded ? t('hide') : t('show')}
            <span className="visually-hidden"> {t('detailsOf', { id: e.id })}</span>
          </Button>
        );
      },
    },
  ];

  const filtered = Object.values(filters).some(Boolean);
  const paged = cursors.length > 1 || next !== '';
  return (
    <Page title={t('title')} wide>
      <p className="page-lead">{t('lead')}</p>
      <section className="section" aria-labelledby="audit-filters-heading">
        <h2 id="audit-filters-heading">{t('filters')}</h2>
        <FilterForm filters={filters} onApply={(f) => setSearchParams(paramsOf(f))} />
      </section>
      <section className="section" aria-labelledby="audit-events-heading">
        <div className="section-head">
          <h2 id="audit-events-heading">{t('events')}</h2>
          <div className="section-actions">
            <Button onClick={() => void events.refetch()} busy={events.isFetching && !events.isPlaceholderData}>
              {t('refresh')}
            </Button>
          </div>
        </div>
        {events.error && !rows ? (
          <ErrorMessage error={events.error} title={t('readFailed')} />
        ) : (
          <div className="table-block">
            <EventList rows={rows ?? []} busy={events.isFetching} columns={columns} open={open} />
            {events.isLoading ? <Loading /> : null}
            {rows && rows.length === 0 && !events.isFetching ? (
              <EmptyState title={filtered ? t('noMatch') : t('none2')}>
                {filtered ? <p>{t('noMatchBody')}</p> : <p>{t('noneBody')}</p>}
              </EmptyState>
            ) : null}
            {events.error && rows ? <ErrorMessage error={events.error} /> : null}
          </div>
        )}
        {paged ? (
          <nav className="pager" aria-label={t('pages')}>
            <Button onClick={() => setCursors((c) => c.slice(0, -1))} disabled={cursors.length <= 1 || events.isPlaceholderData}>
              {t('newer')}
            </Button>
            <span className="pager-status" aria-live="polite">
              {next ? t('page', { n: cursors.length }) : t('pageOldest', { n: cursors.length })}
            </span>
            <Button onClick={() => setCursors((c) => [...c, next])} disabled={!next || events.isPlaceholderData}>
              {t('older')}
            </Button>
          </nav>
        ) : null}
      </section>
    </Page>
  );
}
