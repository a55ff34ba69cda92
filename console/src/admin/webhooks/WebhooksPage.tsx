import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useMemo, useRef, useState } from 'react';
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
  const headingRef = useRef<HTMLHeadingElement>(null);
  useEffect(() => headingRef.current?.focus(), []);
  const created = notice.kind === 'created';
  return (
    <section className="secret-once" aria-labelledby="webhook-secret-heading">
      <h2 id="webhook-secret-heading" ref={headingRef} tabIndex={-1}>
        {created ? 'Webhook created' : 'New signing secret'}
      </h2>
      {created ? (
        <p>
          The endpoint <strong className="webhook-url">{notice.url}</strong> is registered. Give its receiver this signing secret: it verifies the signature of each
          delivery with it (Standard Webhooks).
        </p>
      ) : (
        <p>
          The new signing secret of <strong className="webhook-url">{notice.url}</strong>. The previous one keeps signing beside it for 24 hours (each delivery carries
          both signatures): give the receiver this one within that time. After it, only this one signs.
        </p>
      )}
      <code data-testid="webhook-secret">{notice.secret}</code>
      <p>
        <strong>Copy the secret now: you will not see it again.</strong> The service keeps it sealed and never shows it; if it is lost, rotate it.
      </p>
      <div className="form-actions">
        <CopyButton value={notice.secret} label="Copy the secret" />
        <Button onClick={onDismiss}>Done, hide it</Button>
      </div>
    </section>
  );
}

function EventList({ webhook }: { webhook: Webhook }) {
  const { events } = webhook;
  if (takesAll(events)) return <>All events</>;
  const shown = events.length > SHOWN_EVENTS ? events.slice(0, SHOWN_EVENTS - 1) : events;
  return (
    <>
      <span className="visually-hidden">{events.length === 1 ? '1 event: ' : `${events.length} events: `}</span>
      <ul className="plain-list webhook-events">
        {shown.map((e) => (
          <li key={e}>
            <code>{e}</code>
          </li>
        ))}
        {shown.length < events.length ? <li className="muted">and {events.length - shown.length} more (edit the webhook to see them all)</li> : null}
      </ul>
    </>
  );
}

function State({ webhook: w }: { webhook: Webhook }) {
  return (
    <>
      {w.enabled ? <span className="badge badge-ok">Enabled</span> : <span className="badge badge-warn">Disabled</span>}
      {!w.enabled && w.disabledReason ? <span className="webhook-note">By the service: {asSentence(w.disabledReason)}</span> : null}
      {w.failingSince !== '0' ? <span className="webhook-note">Failing since {formatTime(w.failingSince)}</span> : null}
    </>
  );
}

export default function WebhooksPage() {
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
      toast(`Test event ${r.eventID} queued for ${w.url}.`);
      setLog({ sectorID, webhookID: w.id });
      void queryClient.invalidateQueries({ queryKey: ['webhook-deliveries', sectorID, w.id] });
    },
  });
  const toggle = useMutation({
    mutationFn: (w: Webhook) => webhooksApi.update(sectorID, w.id, { enabled: !w.enabled }),
    onSuccess: (saved) => {
      toast(`Webhook ${saved.url} ${saved.enabled ? 'enabled' : 'disabled'}.`);
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
      toast(`Webhook ${w.url} deleted.`);
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
        header: 'Endpoint',
        cell: ({ row }) => (
          <>
            <code className="webhook-url">{row.original.url}</code>
            {row.original.description ? <span className="webhook-note">{row.original.description}</span> : null}
          </>
        ),
      },
      { id: 'events', header: 'Events', cell: ({ row }) => <EventList webhook={row.original} /> },
      { id: 'state', header: 'State', cell: ({ row }) => <State webhook={row.original} /> },
      { id: 'createdAt', header: 'Created', cell: ({ row }) => formatTime(row.original.createdAt) },
      {
        id: 'actions',
        header: 'Actions',
        cell: ({ row }) => {
          const w = row.original;
          return (
            <span className="row-actions">
              <Button onClick={() => setLog({ sectorID, webhookID: w.id })} aria-label={`Delivery log of ${w.url}`}>
                Delivery log
              </Button>
              <Button onClick={() => sendTest(w)} busy={testingID === w.id} aria-label={`Send test event to ${w.url}`}>
                Send test event
              </Button>
              <Button
                onClick={() => {
                  setCreating(false);
                  setEditing(w);
                }}
                aria-label={`Edit webhook ${w.url}`}
              >
                Edit
              </Button>
              <Button onClick={() => setEnabled(w)} busy={togglingID === w.id} aria-label={`${w.enabled ? 'Disable' : 'Enable'} webhook ${w.url}`}>
                {w.enabled ? 'Disable' : 'Enable'}
              </Button>
              <Button onClick={() => askRotate(w)} aria-label={`Rotate secret of ${w.url}`}>
                Rotate secret
              </Button>
              <Button variant="danger" onClick={() => askDelete(w)} aria-label={`Delete webhook ${w.url}`}>
                Delete
              </Button>
            </span>
          );
        },
      },
    ],
    [askRotate, askDelete, sendTest, setEnabled, testingID, togglingID, sectorID],
  );

  return (
    <Page
      title="Webhooks"
      wide
      actions={creating ? null : <Button variant="primary" onClick={() => { setEditing(null); setCreating(true); }}>New webhook</Button>}
    >
      <SectorLead sectorID={sectorID} />
      <p className="page-lead">
        A webhook sends what happens in this sector (users created, changed, disabled or signed in, sessions revoked, API tokens created …) to an HTTPS endpoint of
        another system, signed with its secret per Standard Webhooks. Failed deliveries are tried again for about a day; an endpoint whose deliveries all fail for
        days is disabled. Receivers verify the signature and deduplicate by <code>webhook-id</code> (docs/api.md, Webhooks).
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
      <ErrorMessage error={test.error} title="The test event was not sent." />
      <ErrorMessage error={toggle.error} title={toggle.variables?.enabled ? 'The webhook was not disabled.' : 'The webhook was not enabled.'} />
      <DataTable
        caption="Webhooks of this sector"
        columns={columns}
        data={webhooks.data?.webhooks}
        loading={webhooks.isFetching}
        error={webhooks.error}
        emptyTitle="This sector has no webhooks yet."
        emptyBody={
          <p>
            Add one with “New webhook”: the URL of an endpoint of yours and the events it should hear. Its signing secret is shown once, when you create it; then
            “Send test event” checks that the endpoint answers.
          </p>
        }
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
        title={`Rotate the secret of ${rotating.item?.url ?? 'this webhook'}?`}
        confirmLabel="Rotate secret"
        {...rotating.dialog}
      >
        <p>
          A new signing secret is made and shown next, only once. For 24 hours deliveries carry a signature by each secret, so the receiver keeps verifying while you
          give it the new one; then the current secret stops signing. Rotating again within them drops the older one at once.
        </p>
      </ConfirmDialog>
      <ConfirmDialog
        title={`Delete webhook ${deleting.item?.url ?? ''}?`}
        confirmLabel="Delete webhook"
        danger
        {...deleting.dialog}
      >
        <p>Nothing more is sent to it, deliveries still waiting are dropped, and its delivery log is deleted with it. This cannot be undone.</p>
      </ConfirmDialog>
    </Page>
  );
}
