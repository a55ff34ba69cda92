import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useMemo, useRef, useState } from 'react';
import { Button, ConfirmDialog, CopyButton, DataTable, Page, Section, useConfirmedRemoval, useToast, type ColumnDef } from '../../ui';
import { oidcClientsApi } from '../adminApi';
import { useSectorID } from '../sectorContext';
import { SectorLead } from '../SectorLead';
import type { OidcClient } from '../types';
import { formatDateTime } from '../util';
import { authMethodLabel, CreateClientForm, EditClientForm, grantLabel, usesSecret } from './ClientForm';
import { issuerInfo } from './issuer';

/**
 * The apps registered with the sector's OpenID Provider: the issuer an app's
 * OpenID Connect library needs, the list, creating one (its client secret is in the
 * create answer only, so it is shown once, here, with a copy button, and kept
 * nowhere else), editing, rotating the secret (the new one shown once likewise)
 * and deleting, both with confirmation.
 */

/** A secret (or a new app's client ID) to show once. */
interface Notice {
  /** Tells one notice from the next (a second rotation shows, and focuses, a new one). */
  seq: number;
  kind: 'created' | 'rotated';
  sectorID: string;
  client: Pick<OidcClient, 'clientID' | 'clientName' | 'tokenEndpointAuthMethod'>;
  secret?: string;
}

function SecretNotice({ notice, onDismiss }: { notice: Notice; onDismiss: () => void }) {
  const headingRef = useRef<HTMLHeadingElement>(null);
  useEffect(() => headingRef.current?.focus(), []);
  const { client, secret } = notice;
  const created = notice.kind === 'created';
  return (
    <section className="secret-once" aria-labelledby="app-secret-heading">
      <h2 id="app-secret-heading" ref={headingRef} tabIndex={-1}>
        {created ? 'App created' : 'New client secret'}
      </h2>
      {created ? (
        <p>
          The app <strong>{client.clientName}</strong> is registered. Configure its OpenID Connect library with the issuer below and this client ID
          {secret ? ' and client secret' : ''}.
        </p>
      ) : (
        <p>
          The old client secret of <strong>{client.clientName}</strong> no longer works: give the app this one.
        </p>
      )}
      <dl className="facts">
        <dt>Client ID</dt>
        <dd>
          <code data-testid="client-id">{client.clientID}</code>
        </dd>
        {secret ? (
          <>
            <dt>Client secret</dt>
            <dd>
              <code data-testid="client-secret">{secret}</code>
            </dd>
          </>
        ) : null}
      </dl>
      {secret ? (
        <p>
          <strong>Copy the client secret now: you will not see it again.</strong> The service keeps it sealed and never shows it; if it is lost, rotate it.
        </p>
      ) : (
        <p>
          This app has no client secret:{' '}
          {client.tokenEndpointAuthMethod === 'none' ? 'it is a public app, and PKCE protects its authorization codes.' : 'it authenticates with its own key (private key JWT).'}
        </p>
      )}
      <div className="form-actions">
        {created ? <CopyButton value={client.clientID} label="Copy the client ID" /> : null}
        {secret ? <CopyButton value={secret} label="Copy the client secret" /> : null}
        <Button onClick={onDismiss}>Done, hide it</Button>
      </div>
    </section>
  );
}

function ProviderFacts({ issuer }: { issuer?: string }) {
  if (!issuer) return <p className="muted">Loading the issuer…</p>;
  const { discovery } = issuerInfo(issuer);
  return (
    <dl className="facts">
      <dt>Issuer</dt>
      <dd>
        <span className="row-actions">
          <code data-testid="issuer">{issuer}</code>
          <CopyButton value={issuer} label="Copy the issuer" />
        </span>
      </dd>
      <dt>Discovery</dt>
      <dd>
        <span className="row-actions">
          <code data-testid="discovery">{discovery}</code>
          <CopyButton value={discovery} label="Copy the discovery URL" />
        </span>
      </dd>
    </dl>
  );
}

export default function ClientsPage() {
  const sectorID = useSectorID();
  const toast = useToast();
  const queryClient = useQueryClient();
  const [creating, setCreating] = useState(false);
  const [editing, setEditing] = useState<OidcClient | null>(null);
  const [notice, setNotice] = useState<Notice | null>(null);
  const clients = useQuery({ queryKey: ['oidc-clients', sectorID], queryFn: () => oidcClientsApi.list(sectorID), enabled: !!sectorID });
  const issuer = clients.data?.issuer;

  const rotating = useConfirmedRemoval(
    (c: OidcClient) => oidcClientsApi.rotateSecret(sectorID, c.clientID),
    (r, c) => setNotice({ seq: Date.now(), kind: 'rotated', sectorID, client: c, secret: r.clientSecret }),
  );
  const deleting = useConfirmedRemoval(
    (c: OidcClient) => oidcClientsApi.remove(sectorID, c.clientID),
    (_r, c) => {
      toast(`App ${c.clientName} deleted.`);
      if (editing?.clientID === c.clientID) setEditing(null);
      if (notice?.client.clientID === c.clientID) setNotice(null);
      void queryClient.invalidateQueries({ queryKey: ['oidc-clients', sectorID] });
    },
  );
  const askRotate = rotating.ask;
  const askDelete = deleting.ask;

  const columns = useMemo<Array<ColumnDef<OidcClient>>>(
    () => [
      {
        id: 'name',
        header: 'Name',
        cell: ({ row }) => (
          <>
            {row.original.clientName}
            {' '}
            {row.original.firstParty ? <span className="badge badge-ok">first-party</span> : <span className="badge">Third-party</span>}
          </>
        ),
      },
      {
        id: 'clientID',
        header: 'Client ID',
        cell: ({ row }) => (
          <span className="row-actions">
            <code>{row.original.clientID}</code>
            <CopyButton value={row.original.clientID} label="Copy" name={`Copy the client ID of ${row.original.clientName}`} />
          </span>
        ),
      },
      {
        id: 'redirectURIs',
        header: 'Redirect URIs',
        cell: ({ row }) =>
          row.original.redirectURIs.length ? (
            <ul className="plain-list">
              {row.original.redirectURIs.map((u) => (
                <li key={u}>
                  <code>{u}</code>
                </li>
              ))}
            </ul>
          ) : (
            <span className="muted">none</span>
          ),
      },
      { id: 'grants', header: 'Grants', cell: ({ row }) => row.original.grantTypes.map(grantLabel).join(', ') || <span className="muted">none</span> },
      { id: 'auth', header: 'Authentication', cell: ({ row }) => authMethodLabel(row.original.tokenEndpointAuthMethod) },
      { id: 'createdAt', header: 'Created', cell: ({ row }) => formatDateTime(row.original.createdAt) },
      {
        id: 'actions',
        header: 'Actions',
        cell: ({ row }) => {
          const c = row.original;
          return (
            <span className="row-actions">
              <Button
                onClick={() => {
                  setCreating(false);
                  setEditing(c);
                }}
                aria-label={`Edit ${c.clientName}`}
              >
                Edit
              </Button>
              {usesSecret(c.tokenEndpointAuthMethod) ? (
                <Button onClick={() => askRotate(c)} aria-label={`Rotate secret of ${c.clientName}`}>
                  Rotate secret
                </Button>
              ) : null}
              <Button variant="danger" onClick={() => askDelete(c)} aria-label={`Delete ${c.clientName}`}>
                Delete
              </Button>
            </span>
          );
        },
      },
    ],
    [askRotate, askDelete],
  );

  return (
    <Page
      title="Apps (OpenID Connect)"
      wide
      actions={creating ? null : <Button variant="primary" onClick={() => { setEditing(null); setCreating(true); }}>New app</Button>}
    >
      <SectorLead sectorID={sectorID} />
      <p className="page-lead">
        The sector is an OpenID Provider: websites, mobile apps and services registered here sign its users in with OpenID Connect, or get tokens of their own
        (client credentials). A first-party app (the default) is your organisation's own: its users are never asked for consent. Users of a third-party app
        allow or deny what it asks for, once, and can take that back on their account page.
      </p>
      {notice && notice.sectorID === sectorID ? <SecretNotice key={notice.seq} notice={notice} onDismiss={() => setNotice(null)} /> : null}
      <Section title="OpenID Provider" id="oidc-provider">
        <ProviderFacts issuer={issuer} />
      </Section>
      {creating ? (
        <CreateClientForm
          key={sectorID}
          sectorID={sectorID}
          onCreated={(r) => {
            setCreating(false);
            setNotice({ seq: Date.now(), kind: 'created', sectorID, client: r.client, secret: r.clientSecret });
          }}
          onDone={() => setCreating(false)}
        />
      ) : null}
      {editing ? <EditClientForm key={`${sectorID}:${editing.clientID}`} sectorID={sectorID} clientID={editing.clientID} name={editing.clientName} onDone={() => setEditing(null)} /> : null}
      <DataTable
        caption="Apps of this sector"
        columns={columns}
        data={clients.data?.clients}
        loading={clients.isFetching}
        error={clients.error}
        emptyTitle="No apps yet."
        emptyBody={
          <p>
            An app (a website, a mobile app, a backend service) signs users in through this sector instead of keeping passwords of its own. Register it with “New app”,
            then give its OpenID Connect library the issuer <code>{issuer}</code>, its client ID and, for a server, its client secret.
          </p>
        }
        getRowId={(c) => c.clientID}
      />
      <ConfirmDialog
        title={`Rotate the secret of ${rotating.item?.clientName ?? 'this app'}?`}
        confirmLabel="Rotate secret"
        danger
        {...rotating.dialog}
      >
        <p>The current client secret stops working at once. The new one is shown next, only once: update the app with it.</p>
      </ConfirmDialog>
      <ConfirmDialog
        title={`Delete ${deleting.item?.clientName ?? 'this app'}?`}
        confirmLabel="Delete app"
        danger
        {...deleting.dialog}
      >
        <p>The app can no longer sign anyone in, and its tokens, codes and grants are deleted with it. This cannot be undone.</p>
      </ConfirmDialog>
    </Page>
  );
}
