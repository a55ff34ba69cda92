import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useMemo, useRef, useState } from 'react';
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
  const label = DELIVERY_STATUSES.find((s) => s.value === status)?.label ?? status;
  const cls = status === 'succeeded' ? 'badge badge-ok' : status === 'failed' ? 'badge badge-warn' : 'badge';
  return <span className={cls}>{label}</span>;
}

function LastAnswer({ delivery: d }: { delivery: WebhookDelivery }) {
  const answer = d.lastStatus > 0 ? <code>HTTP {d.lastStatus}</code> : d.attempts === 0 ? <span className="muted">Not tried yet</span> : <span className="muted">No answer</span>;
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
      { id: 'status', header: 'Status', cell: ({ row }) => <StatusBadge status={row.original.status} /> },
      { id: 'eventType', header: 'Event type', cell: ({ row }) => <code className="event-type">{row.original.eventType}</code> },
      { id: 'eventID', header: 'Event ID', cell: ({ row }) => <code>{row.original.eventID}</code> },
      { id: 'attempts', header: 'Attempts', cell: ({ row }) => row.original.attempts },
      { id: 'lastAnswer', header: 'Last answer', cell: ({ row }) => <LastAnswer delivery={row.original} /> },
      {
        id: 'nextAttemptAt',
        header: 'Next attempt',
        cell: ({ row }) => (row.original.status === 'pending' ? formatTime(row.original.nextAttemptAt, 'Now') : <span className="muted">none</span>),
      },
      { id: 'createdAt', header: 'Happened', cell: ({ row }) => formatTime(row.original.createdAt) },
      {
        id: 'finishedAt',
        header: 'Finished',
        cell: ({ row }) => (row.original.status === 'pending' ? <span className="muted">not yet</span> : formatTime(row.original.finishedAt)),
      },
    ],
    [],
  );

  const paged = cursors.length > 1 || next !== '';
  return (
    <section className="section" aria-labelledby="delivery-log-heading">
      <div className="section-head">
        <h2 id="delivery-log-heading" ref={headingRef} tabIndex={-1}>
          Deliveries to <span className="webhook-url">{webhook.url}</span>
        </h2>
        <div className="section-actions">
          <Button onClick={onTest} busy={testing}>
            Send test event
          </Button>
          <Button onClick={() => void refresh()} busy={refreshing}>
            Refresh
          </Button>
          <Button onClick={onClose}>Close the log</Button>
        </div>
      </div>
      <p className="muted">
        An event is tried again until the endpoint answers 2xx within 10 seconds: by default for about a day, the waits growing from 5 seconds to 10 hours; then its
        delivery is failed. Every attempt carries the event ID as <code>webhook-id</code>, for the receiver to deduplicate.
        {deliveries.dataUpdatedAt ? ` Read at ${new Date(deliveries.dataUpdatedAt).toLocaleTimeString()}.` : ''}
      </p>
      <div className="toolbar delivery-filters">
        <Field label="Status">
          {(p) => (
            <Select
              {...p}
              value={status}
              onChange={(e) => {
                setStatus(e.target.value as WebhookDeliveryStatus | '');
                setCursors(['']);
              }}
            >
              <option value="">Any</option>
              {DELIVERY_STATUSES.map((s) => (
                <option key={s.value} value={s.value}>
                  {s.label}
                </option>
              ))}
            </Select>
          )}
        </Field>
      </div>
      <DataTable
        caption={`Delivery log of ${webhook.url}`}
        hideCaption
        columns={columns}
        data={deliveries.data?.deliveries}
        loading={deliveries.isFetching}
        error={deliveries.error}
        emptyTitle={status ? `No ${status} deliveries.` : 'No deliveries yet.'}
        emptyBody={status ? null : <p>Events this endpoint takes show here as they happen. “Send test event” sends one now.</p>}
        getRowId={(d) => d.id}
      />
      {paged ? (
        <nav className="pager" aria-label="Delivery log pages">
          <Button onClick={() => setCursors((c) => c.slice(0, -1))} disabled={cursors.length <= 1 || deliveries.isPlaceholderData}>
            Newer deliveries
          </Button>
          <span className="pager-status" aria-live="polite">
            Page {cursors.length}
            {next ? '' : ' (the oldest)'}
          </span>
          <Button onClick={() => setCursors((c) => [...c, next])} disabled={!next || deliveries.isPlaceholderData}>
            Older deliveries
          </Button>
        </nav>
      ) : null}
    </section>
  );
}
