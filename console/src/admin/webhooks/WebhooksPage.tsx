import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useMemo, useRef, useState } from 'react';
import { Trans, useTranslation } from 'react-i18next';
import { Button, ConfirmDialog, CopyButton, DataTable, ErrorMessage, Page, useConfirmedRemoval, useToast, type ColumnDef } from '../../ui';
import { webhooksApi } from '../adminApi';
import { useSectorID } from '../sectorContext';
import { SectorLead } from '../SectorLead';
import type { Webhook } from '../types';
import { formatTime } from '../util';
import { DeliveryLog } from './DeliveryLog';
import { CreateWebhookForm, EditWebhookForm } from './WebhookForm';
import { asSentence, takesAll } from './webhookEvents';
import './webhooks.css';

/**
 * The sector's webhooks: endpoints of other systems that hear what happens in the
 * sector, signed per Standard Webhooks. The list (URL, events, enabled, why the
 * service disabled one, since when one is failing), creating one (its signing
 * secret is in the create answer only, so it is shown once, here, with a copy
 * button, and kept nowhere else), editing, disabling, rotating the secret (the
 * new one shown once likewise; the old one signs beside it for 24 hours),
 * deleting with confirmation, sending a test event, and each endpoint's delivery log.
 */

/** Event types shown in a row before "and N more". */
const SHOWN_EVENTS = 5;

/** A secret to show once. */
interface Notice {
  /** Tells one notice from the next (a second rotation shows, and focuses, a new one). */
  seq: number;
  kind: 'created' | 'rotated';
  sectorID: string;
  webhookID: string;
  url: string;
  secret: string;
}

function SecretNotice({ notice, onDismiss }: { notice: Notice; onDismiss: () => void }) {
  const { t } = useTranslation('webhooks');
  const headingRef = useRef<HTMLHeadingElement>(null);
  useEffect(() => headingRef.current?.focus(), []);
  const created = notice.kind === 'created';
  return (
    <section className="secret-once" aria-labelledby="webhook-secret-heading">
      <h2 id="webhook-secret-heading" ref={headingRef} tabIndex={-1}>
        {created ? t('notice.created') : t('notice.newSecret')}
      </h2>
      <p>
        <Trans t={t} i18nKey={created ? 'notice.registered' : 'notice.rotated'} values={{ url: notice.url }} components={{ strong: <strong className="webhook-url" /> }} />
      </p>
      <code data-testid="webhook-secret">{notice.secret}</code>
      <p>
        <strong>{t('notice.copyNow')}</strong> {t('notice.sealed')}
      </p>
      <div className="form-actions">
        <CopyButton value={notice.secret} label={t('notice.copy')} />
        <Button onClick={onDismiss}>{t('notice.hide')}</Button>
      </div>
    </section>
  );
}

function EventList({ webhook }: { webhook: Webhook }) {
  const { t } = useTranslation('webhooks');
  const { events } = webhook;
  if (takesAll(events)) return <>{t('allEvents')}</>;
  const shown = events.length > SHOWN_EVENTS ? events.slice(0, SHOWN_EVENTS - 1) : events;
  return (
    <>
      <span className="visually-hidden">{t('eventCount', { count: events.length })}</span>
      <ul className="plain-list webhook-events">
        {shown.map((e) => (
          <li key={e}>
            <code>{e}</code>
          </li>
        ))}
        {shown.length < events.length ? <li className="muted">{t('more', { n: events.length - shown.length })}</li> : null}
      </ul>
    </>
  );
}

function State({ webhook: w }: { webhook: Webhook }) {
  const { t } = useTranslation('webhooks');
  return (
    <>
      {w.enabled ? <span className="badge badge-ok">{t('enabled')}</span> : <span className="badge badge-warn">{t('disabled')}</span>}
      {!w.enabled && w.disabledReason ? <span className="webhook-note">{t('byService', { reason: asSentence(w.disabledReason) })}</span> : null}
      {w.failingSince !== '0' ? <span className="webhook-note">{t('failingSince', { time: formatTime(w.failingSince) })}</span> : null}
    </>
  );
}

export default function WebhooksPage() {
  const { t } = useTranslation('webhooks');
  const sectorID = useSectorID();
  const toast = useToast();
  const queryClient = useQueryClient();
  const [creating, setCreating] = useState(false);
  const [editing, setEditing] = useState<Webhook | null>(null);
  const [notice, setNotice] = useState<Notice | null>(null);
  const [log, setLog] = useState<{ sectorID: string; webhookID: string } | null>(null);
  const webhooks = useQuery({ queryKey: ['webhooks', sectorID], queryFn: () => webhooksApi.list(sectorID), enabled: !!sectorID });
  const logOf = log?.sectorID === sectorID ? webhooks.data?.webhooks.find((w) => w.id === log.webhookID) : undefined;

  const invalidate = () => void queryClient.invalidateQueries({ queryKey: ['webhooks', sectorID] });

  const test = useMutation({
    mutationFn: (w: Webhook) => webhooksApi.test(sectorID, w.id),
    onSuccess: (r, w) => {
      toast(t('testQueued', { id: r.eventID, url: w.url }));
      setLog({ sectorID, webhookID: w.id });
      void queryClient.invalidateQueries({ queryKey: ['webhook-deliveries', sectorID, w.id] });
    },
  });
  const toggle = useMutation({
    mutationFn: (w: Webhook) => webhooksApi.update(sectorID, w.id, { enabled: !w.enabled }),
    onSuccess: (saved) => {
      toast(saved.enabled ? t('enabledToast', { url: saved.url }) : t('disabledToast', { url: saved.url }));
      invalidate();
    },
  });
  const rotating = useConfirmedRemoval(
    (w: Webhook) => webhooksApi.rotateSecret(sectorID, w.id),
    (r, w) => setNotice({ seq: Date.now(), kind: 'rotated', sectorID, webhookID: w.id, url: w.url, secret: r.secret }),
  );
  const deleting = useConfirmedRemoval(
    (w: Webhook) => webhooksApi.remove(sectorID, w.id),
    (_r, w) => {
      toast(t('deleted', { url: w.url }));
      if (editing?.id === w.id) setEditing(null);
      if (notice?.webhookID === w.id) setNotice(null);
      if (log?.webhookID === w.id) setLog(null);
      invalidate();
    },
  );
  const askRotate = rotating.ask;
  const askDelete = deleting.ask;
  const sendTest = test.mutate;
  const setEnabled = toggle.mutate;
  const testingID = test.isPending ? test.variables?.id : undefined;
  const togglingID = toggle.isPending ? toggle.variables?.id : undefined;

  const columns = useMemo<Array<ColumnDef<Webhook>>>(
    () => [
      {
        id: 'url',
        header: t('endpoint'),
        cell: ({ row }) => (
          <>
            <code className="webhook-url">{row.original.url}</code>
            {row.original.description ? <span className="webhook-note">{row.original.description}</span> : null}
          </>
        ),
      },
      { id: 'events', header: t('eventsHeader'), cell: ({ row }) => <EventList webhook={row.original} /> },
      { id: 'state', header: t('state'), cell: ({ row }) => <State webhook={row.original} /> },
      { id: 'createdAt', header: t('created'), cell: ({ row }) => formatTime(row.original.createdAt) },
      {
        id: 'actions',
        header: t('actions'),
        cell: ({ row }) => {
          const w = row.original;
          return (
            <span className="row-actions">
              <Button onClick={() => setLog({ sectorID, webhookID: w.id })} aria-label={t('logLabel', { url: w.url })}>
                {t('logButton')}
              </Button>
              <Button onClick={() => sendTest(w)} busy={testingID === w.id} aria-label={t('testLabel', { url: w.url })}>
                {t('test')}
              </Button>
              <Button
                onClick={() => {
                  setCreating(false);
                  setEditing(w);
                }}
                aria-label={t('editLabel', { url: w.url })}
              >
                {t('edit')}
              </Button>
              <Button onClick={() => setEnabled(w)} busy={togglingID === w.id} aria-label={w.enabled ? t('disableLabel', { url: w.url }) : t('enableLabel', { url: w.url })}>
                {w.enabled ? t('disable') : t('enable')}
              </Button>
              <Button onClick={() => askRotate(w)} aria-label={t('rotateLabel', { url: w.url })}>
                {t('rotate')}
              </Button>
              <Button variant="danger" onClick={() => askDelete(w)} aria-label={t('deleteLabel', { url: w.url })}>
                {t('delete')}
              </Button>
            </span>
          );
        },
      },
    ],
    [askRotate, askDelete, sendTest, setEnabled, testingID, togglingID, sectorID, t],
  );

  return (
    <Page
      title={t('title')}
      wide
      actions={creating ? null : <Button variant="primary" onClick={() => { setEditing(null); setCreating(true); }}>{t('new')}</Button>}
    >
      <SectorLead sectorID={sectorID} />
      <p className="page-lead">
        <Trans t={t} i18nKey="lead" components={{ code: <code /> }} />
      </p>
      {notice && notice.sectorID === sectorID ? <SecretNotice key={notice.seq} notice={notice} onDismiss={() => setNotice(null)} /> : null}
      {creating ? (
        <CreateWebhookForm
          key={`new:${sectorID}`}
          sectorID={sectorID}
          onCreated={(r) => {
            setCreating(false);
            setNotice({ seq: Date.now(), kind: 'created', sectorID, webhookID: r.id, url: r.url, secret: r.secret });
          }}
          onDone={() => setCreating(false)}
        />
      ) : null}
      {/* Keys name their kind: the edit form and the delivery log are siblings and may show the same webhook. */}
      {editing ? <EditWebhookForm key={`edit:${sectorID}:${editing.id}`} sectorID={sectorID} webhook={editing} onDone={() => setEditing(null)} /> : null}
      <ErrorMessage error={test.error} title={t('testFailed')} />
      <ErrorMessage error={toggle.error} title={toggle.variables?.enabled ? t('disableFailed') : t('enableFailed')} />
      <DataTable
        caption={t('caption')}
        columns={columns}
        data={webhooks.data?.webhooks}
        loading={webhooks.isFetching}
        error={webhooks.error}
        emptyTitle={t('empty')}
        emptyBody={<p>{t('emptyBody')}</p>}
        getRowId={(w) => w.id}
      />
      {logOf ? (
        <DeliveryLog
          key={`log:${sectorID}:${logOf.id}`}
          sectorID={sectorID}
          webhook={logOf}
          onTest={() => sendTest(logOf)}
          testing={testingID === logOf.id}
          onClose={() => setLog(null)}
        />
      ) : null}
      <ConfirmDialog
        title={t('rotateTitle', { url: rotating.item?.url ?? t('thisWebhook') })}
        confirmLabel={t('rotate')}
        {...rotating.dialog}
      >
        <p>{t('rotateBody')}</p>
      </ConfirmDialog>
      <ConfirmDialog
        title={t('deleteTitle', { url: deleting.item?.url ?? '' })}
        confirmLabel={t('deleteWebhook')}
        danger
        {...deleting.dialog}
      >
        <p>{t('deleteBody')}</p>
      </ConfirmDialog>
    </Page>
  );
}
