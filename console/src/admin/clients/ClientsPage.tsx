import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useMemo, useRef, useState } from 'react';
import { Trans, useTranslation } from 'react-i18next';
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
  const { t } = useTranslation('clients');
  const headingRef = useRef<HTMLHeadingElement>(null);
  useEffect(() => headingRef.current?.focus(), []);
  const { client, secret } = notice;
  const created = notice.kind === 'created';
  return (
    <section className="secret-once" aria-labelledby="app-secret-heading">
      <h2 id="app-secret-heading" ref={headingRef} tabIndex={-1}>
        {created ? t('notice.created') : t('notice.newSecret')}
      </h2>
      <p>
        <Trans
          t={t}
          i18nKey={created ? (secret ? 'notice.registeredWithSecret' : 'notice.registered') : 'notice.oldSecret'}
          values={{ name: client.clientName }}
          components={{ strong: <strong /> }}
        />
      </p>
      <dl className="facts">
        <dt>{t('clientID')}</dt>
        <dd>
          <code data-testid="client-id">{client.clientID}</code>
        </dd>
        {secret ? (
          <>
            <dt>{t('clientSecret')}</dt>
            <dd>
              <code data-testid="client-secret">{secret}</code>
            </dd>
          </>
        ) : null}
      </dl>
      {secret ? (
        <p>
          <strong>{t('notice.copyNow')}</strong> {t('notice.sealed')}
        </p>
      ) : (
        <p>
          {t('notice.noSecret')} {client.tokenEndpointAuthMethod === 'none' ? t('notice.public') : t('notice.ownKey')}
        </p>
      )}
      <div className="form-actions">
        {created ? <CopyButton value={client.clientID} label={t('copyID')} /> : null}
        {secret ? <CopyButton value={secret} label={t('copySecret')} /> : null}
        <Button onClick={onDismiss}>{t('notice.hide')}</Button>
      </div>
    </section>
  );
}

function ProviderFacts({ issuer }: { issuer?: string }) {
  const { t } = useTranslation('clients');
  if (!issuer) return <p className="muted">{t('issuerLoading')}</p>;
  const { discovery } = issuerInfo(issuer);
  return (
    <dl className="facts">
      <dt>{t('issuer')}</dt>
      <dd>
        <span className="row-actions">
          <code data-testid="issuer">{issuer}</code>
          <CopyButton value={issuer} label={t('copyIssuer')} />
        </span>
      </dd>
      <dt>{t('discovery')}</dt>
      <dd>
        <span className="row-actions">
          <code data-testid="discovery">{discovery}</code>
          <CopyButton value={discovery} label={t('copyDiscovery')} />
        </span>
      </dd>
    </dl>
  );
}

export default function ClientsPage() {
  const { t } = useTranslation('clients');
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
      toast(t('deleted', { name: c.clientName }));
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
        header: t('name'),
        cell: ({ row }) => (
          <>
            {row.original.clientName}
            {' '}
            {row.original.firstParty ? <span className="badge badge-ok">{t('firstParty')}</span> : <span className="badge">{t('thirdParty')}</span>}
          </>
        ),
      },
      {
        id: 'clientID',
        header: t('clientID'),
        cell: ({ row }) => (
          <span className="row-actions">
            <code>{row.original.clientID}</code>
            <CopyButton value={row.original.clientID} label={t('copy')} name={t('copyIDOf', { name: row.original.clientName })} />
          </span>
        ),
      },
      {
        id: 'redirectURIs',
        header: t('redirectURIs'),
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
            <span className="muted">{t('none')}</span>
          ),
      },
      { id: 'grants', header: t('grants.label'), cell: ({ row }) => row.original.grantTypes.map(grantLabel).join(', ') || <span className="muted">{t('none')}</span> },
      { id: 'auth', header: t('authentication'), cell: ({ row }) => authMethodLabel(row.original.tokenEndpointAuthMethod) },
      { id: 'createdAt', header: t('created'), cell: ({ row }) => formatDateTime(row.original.createdAt) },
      {
        id: 'actions',
        header: t('actions'),
        cell: ({ row }) => {
          const c = row.original;
          return (
            <span className="row-actions">
              <Button
                onClick={() => {
                  setCreating(false);
                  setEditing(c);
                }}
                aria-label={t('editLabel', { name: c.clientName })}
              >
                {t('edit')}
              </Button>
              {usesSecret(c.tokenEndpointAuthMethod) ? (
                <Button onClick={() => askRotate(c)} aria-label={t('rotateLabel', { name: c.clientName })}>
                  {t('rotate')}
                </Button>
              ) : null}
              <Button variant="danger" onClick={() => askDelete(c)} aria-label={t('deleteLabel', { name: c.clientName })}>
                {t('delete')}
              </Button>
            </span>
          );
        },
      },
    ],
    [askRotate, askDelete, t],
  );

  return (
    <Page
      title={t('title')}
      wide
      actions={creating ? null : <Button variant="primary" onClick={() => { setEditing(null); setCreating(true); }}>{t('new')}</Button>}
    >
      <SectorLead sectorID={sectorID} />
      <p className="page-lead">
        {t('lead')}
      </p>
      {notice && notice.sectorID === sectorID ? <SecretNotice key={notice.seq} notice={notice} onDismiss={() => setNotice(null)} /> : null}
      <Section title={t('provider')} id="oidc-provider">
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
        caption={t('caption')}
        columns={columns}
        data={clients.data?.clients}
        loading={clients.isFetching}
        error={clients.error}
        emptyTitle={t('empty')}
        emptyBody={
          <p>
            <Trans t={t} i18nKey="emptyBody" values={{ issuer }} components={{ code: <code /> }} />
          </p>
        }
        getRowId={(c) => c.clientID}
      />
      <ConfirmDialog
        title={t('rotateTitle', { name: rotating.item?.clientName ?? t('thisApp') })}
        confirmLabel={t('rotate')}
        danger
        {...rotating.dialog}
      >
        <p>{t('rotateBody')}</p>
      </ConfirmDialog>
      <ConfirmDialog
        title={t('deleteTitle', { name: deleting.item?.clientName ?? t('thisApp') })}
        confirmLabel={t('deleteApp')}
        danger
        {...deleting.dialog}
      >
        <p>{t('deleteBody')}</p>
      </ConfirmDialog>
    </Page>
  );
}
