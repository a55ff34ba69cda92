import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useMemo, useRef, useState } from 'react';
import { Trans, useTranslation } from 'react-i18next';
import { Button, DataTable, Field, Select, type ColumnDef } from '../../ui';
import { webhooksApi, type DeliveryQuery } from '../adminApi';
import type { ListWebhookDeliveriesResponse, Webhook, WebhookDelivery, WebhookDeliveryStatus } from '../types';
import { formatTime } from '../util';
import { DELIVERY_STATUSES } from './webhookEvents';

/**
 * One endpoint's delivery log, newest first (ended deliveries are kept 30 days):
 * each delivery's state, event, attempts, last answer and next attempt, filtered
 * by state and paged by the API's cursor (older / newer). It refreshes itself
 * while a delivery is due within seconds (a test event just sent), and on
 * "Refresh".
 */

const PAGE_SIZE = 20;
/** Seconds ahead within which a pending delivery makes the log poll. */
const DUE_SOON_SECONDS = 30;
const POLL_MS = 2000;

function dueSoon(data: ListWebhookDeliveriesResponse | undefined): boolean {
  const horizon = Date.now() / 1000 + DUE_SOON_SECONDS;
  return !!data?.deliveries.some((d) => d.status === 'pending' && Number(d.nextAttemptAt) <= horizon);
}

function StatusBadge({ status }: { status: WebhookDeliveryStatus }) {
  const { t } = useTranslation('webhooks');
  const label = DELIVERY_STATUSES.includes(status) ? t(`statuses.${status}`) : status;
  const cls = status === 'succeeded' ? 'badge badge-ok' : status === 'failed' ? 'badge badge-warn' : 'badge';
  return <span className={cls}>{label}</span>;
}

function LastAnswer({ delivery: d }: { delivery: WebhookDelivery }) {
  const { t } = useTranslation('webhooks');
  const answer = d.lastStatus > 0 ? <code>HTTP {d.lastStatus}</code> : d.attempts === 0 ? <span className="muted">{t('log.notTried')}</span> : <span className="muted">{t('log.noAnswer')}</span>;
  // The error repeats the status for a plain HTTP failure: say it once.
  const error = d.lastError && d.lastError !== `HTTP ${d.lastStatus}` ? d.lastError : '';
  return (
    <>
      {answer}
      {error ? <span className="delivery-error">{error}</span> : null}
    </>
  );
}

export interface DeliveryLogProps {
  sectorID: string;
  webhook: Webhook;
  /** Sends a test event to this endpoint (the page's action, shared with the row's button). */
  onTest: () => void;
  testing: boolean;
  onClose: () => void;
}

export function DeliveryLog({ sectorID, webhook, onTest, testing, onClose }: DeliveryLogProps) {
  const { t } = useTranslation('webhooks');
  const queryClient = useQueryClient();
  const headingRef = useRef<HTMLHeadingElement>(null);
  const [status, setStatus] = useState<WebhookDeliveryStatus | ''>('');
  // The cursor of each page visited, the current one last ('' is the newest page).
  const [cursors, setCursors] = useState<string[]>(['']);
  const [refreshing, setRefreshing] = useState(false);
  const cursor = cursors[cursors.length - 1];
  const q: DeliveryQuery = { status: status || undefined, cursor: cursor || undefined, pageSize: PAGE_SIZE };
  const deliveries = useQuery({
    queryKey: ['webhook-deliveries', sectorID, webhook.id, q],
    queryFn: () => webhooksApi.deliveries(sectorID, webhook.id, q),
    placeholderData: keepPreviousData,
    refetchInterval: (query) => (dueSoon(query.state.data) ? POLL_MS : false),
  });
  const next = deliveries.data?.nextCursor ?? '';

  useEffect(() => headingRef.current?.focus(), [webhook.id]);

  const refresh = async () => {
    setRefreshing(true);
    try {
      // The endpoint's failing state follows its deliveries.
      await Promise.all([deliveries.refetch(), queryClient.invalidateQueries({ queryKey: ['webhooks', sectorID] })]);
    } finally {
      setRefreshing(false);
    }
  };

  const columns = useMemo<Array<ColumnDef<WebhookDelivery>>>(
    () => [
      { id: 'status', header: t('log.status'), cell: ({ row }) => <StatusBadge status={row.original.status} /> },
      { id: 'eventType', header: t('log.eventType'), cell: ({ row }) => <code className="event-type">{row.original.eventType}</code> },
      { id: 'eventID', header: t('log.eventID'), cell: ({ row }) => <code>{row.original.eventID}</code> },
      { id: 'attempts', header: t('log.attempts'), cell: ({ row }) => row.original.attempts },
      { id: 'lastAnswer', header: t('log.lastAnswer'), cell: ({ row }) => <LastAnswer delivery={row.original} /> },
      {
        id: 'nextAttemptAt',
        header: t('log.nextAttempt'),
        cell: ({ row }) => (row.original.status === 'pending' ? formatTime(row.original.nextAttemptAt, t('log.now')) : <span className="muted">{t('log.none')}</span>),
      },
      { id: 'createdAt', header: t('log.happened'), cell: ({ row }) => formatTime(row.original.createdAt) },
      {
        id: 'finishedAt',
        header: t('log.finished'),
        cell: ({ row }) => (row.original.status === 'pending' ? <span className="muted">{t('log.notYet')}</span> : formatTime(row.original.finishedAt)),
      },
    ],
    [t],
  );

  const paged = cursors.length > 1 || next !== '';
  return (
    <section className="section" aria-labelledby="delivery-log-heading">
      <div className="section-head">
        <h2 id="delivery-log-heading" ref={headingRef} tabIndex={-1}>
          <Trans t={t} i18nKey="log.title" values={{ url: webhook.url }} components={{ url: <span className="webhook-url" /> }} />
        </h2>
        <div className="section-actions">
          <Button onClick={onTest} busy={testing}>
            {t('test')}
          </Button>
          <Button onClick={() => void refresh()} busy={refreshing}>
            {t('refresh')}
          </Button>
          <Button onClick={onClose}>{t('log.close')}</Button>
        </div>
      </div>
      <p className="muted">
        <Trans t={t} i18nKey="log.explain" components={{ code: <code /> }} />
        {deliveries.dataUpdatedAt ? t('log.readAt', { time: new Date(deliveries.dataUpdatedAt).toLocaleTimeString() }) : ''}
      </p>
      <div className="toolbar delivery-filters">
        <Field label={t('log.status')}>
          {(p) => (
            <Select
              {...p}
              value={status}
              onChange={(e) => {
                setStatus(e.target.value as WebhookDeliveryStatus | '');
                setCursors(['']);
              }}
            >
              <option value="">{t('log.any')}</option>
              {DELIVERY_STATUSES.map((s) => (
                <option key={s} value={s}>
                  {t(`statuses.${s}`)}
                </option>
              ))}
            </Select>
          )}
        </Field>
      </div>
      <DataTable
        caption={t('logLabel', { url: webhook.url })}
        hideCaption
        columns={columns}
        data={deliveries.data?.deliveries}
        loading={deliveries.isFetching}
        error={deliveries.error}
        emptyTitle={status ? t(`log.noneOf.${status}`) : t('log.noneYet')}
        emptyBody={status ? null : <p>{t('log.noneBody')}</p>}
        getRowId={(d) => d.id}
      />
      {paged ? (
        <nav className="pager" aria-label={t('log.pages')}>
          <Button onClick={() => setCursors((c) => c.slice(0, -1))} disabled={cursors.length <= 1 || deliveries.isPlaceholderData}>
            {t('log.newer')}
          </Button>
          <span className="pager-status" aria-live="polite">
            {next ? t('log.page', { n: cursors.length }) : t('log.pageOldest', { n: cursors.length })}
          </span>
          <Button onClick={() => setCursors((c) => [...c, next])} disabled={!next || deliveries.isPlaceholderData}>
            {t('log.older')}
          </Button>
        </nav>
      ) : null}
    </section>
  );
}
