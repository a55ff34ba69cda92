import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { accountApi, type AppGrant, type Session } from '../../account/accountApi';
import { Button, ConfirmDialog, DataTable, Section, useConfirmedRemoval, useToast, type ColumnDef } from '../../ui';
import { formatDateTime, formatTime } from '../util';

/**
 * Where a user is signed in (GET /users/{sub}/sessions, times in the browser's local
 * time), each session revoked after a confirmation (DELETE /users/{sub}/sessions/{id}):
 * it ends at once.
 */
export function UserSessions({ sub, who }: { sub: string; who: string }) {
  const { t } = useTranslation('users');
  const toast = useToast();
  const queryClient = useQueryClient();
  const sessions = useQuery({ queryKey: ['user-sessions', sub], queryFn: () => accountApi.sessions(sub) });
  const revoking = useConfirmedRemoval(
    (s: Session) => accountApi.revokeSession(sub, s.id),
    () => {
      toast(t('sessions.revoked', { who }));
      void queryClient.invalidateQueries({ queryKey: ['user-sessions', sub] });
    },
  );
  const ask = revoking.ask;
  const columns = useMemo<Array<ColumnDef<Session>>>(
    () => [
      { id: 'device', header: t('sessions.device'), cell: ({ row }) => <span className="wrap-anywhere">{row.original.userAgent || t('sessions.unknownDevice')}</span> },
      { id: 'ip', header: t('sessions.ip'), cell: ({ row }) => <span className="wrap-anywhere">{row.original.clientIP || '—'}</span> },
      { id: 'created', header: t('sessions.signedIn'), cell: ({ row }) => formatTime(row.original.createdAt) },
      { id: 'seen', header: t('sessions.lastActive'), cell: ({ row }) => formatTime(row.original.lastSeenAt) },
      { id: 'expires', header: t('sessions.ends'), cell: ({ row }) => formatTime(row.original.expiresAt) },
      {
        id: 'actions',
        header: t('list.actions'),
        cell: ({ row }) => (
          <span className="row-actions">
            <Button variant="danger" onClick={() => ask(row.original)} aria-label={t('sessions.revokeLabel', { time: formatTime(row.original.createdAt) })}>
              {t('sessions.revoke')}
            </Button>
          </span>
        ),
      },
    ],
    [ask, t],
  );
  return (
    <Section title={t('sessions.title')} id="user-sessions">
      <DataTable
        caption={t('sessions.caption')}
        hideCaption
        columns={columns}
        data={sessions.data?.sessions}
        loading={sessions.isFetching}
        error={sessions.error}
        emptyTitle={t('sessions.none')}
        getRowId={(s) => s.id}
      />
      <ConfirmDialog title={t('sessions.revokeTitle')} confirmLabel={t('sessions.revokeSession')} danger {...revoking.dialog}>
        <p>{t('sessions.revokeBody', { who, device: revoking.item?.userAgent || t('sessions.thatDevice') })}</p>
      </ConfirmDialog>
    </Section>
  );
}

/**
 * The apps of the sector's OpenID Provider the user gave access to
 * (GET /users/{sub}/oidc/grants), each revoked after a confirmation: the app's tokens
 * stop at once, and a third-party app asks for consent again.
 */
export function UserGrants({ sub, who }: { sub: string; who: string }) {
  const { t } = useTranslation('users');
  const toast = useToast();
  const queryClient = useQueryClient();
  const grants = useQuery({ queryKey: ['user-grants', sub], queryFn: () => accountApi.appGrants(sub) });
  const revoking = useConfirmedRemoval(
    (g: AppGrant) => accountApi.revokeAppGrant(sub, g.clientID),
    (_res, g) => {
      toast(t('grants.revoked', { app: g.clientName || g.clientID, who }));
      void queryClient.invalidateQueries({ queryKey: ['user-grants', sub] });
    },
  );
  const ask = revoking.ask;
  const columns = useMemo<Array<ColumnDef<AppGrant>>>(
    () => [
      {
        id: 'app',
        header: t('grants.app'),
        cell: ({ row }) => (
          <span className="wrap-anywhere">
            {row.original.clientName || row.original.clientID}
            {row.original.firstParty ? <span className="badge"> {t('grants.firstParty')}</span> : null}
          </span>
        ),
      },
      { id: 'scopes', header: t('grants.scopes'), cell: ({ row }) => <span className="wrap-anywhere">{[...row.original.scopes, ...row.original.claims].join(' ')}</span> },
      { id: 'granted', header: t('grants.granted'), cell: ({ row }) => formatDateTime(row.original.grantedAt) },
      { id: 'expires', header: t('grants.lapses'), cell: ({ row }) => formatDateTime(row.original.expiresAt) },
      {
        id: 'actions',
        header: t('list.actions'),
        cell: ({ row }) => (
          <span className="row-actions">
            <Button variant="danger" onClick={() => ask(row.original)} aria-label={t('grants.revokeLabel', { app: row.original.clientName || row.original.clientID })}>
              {t('sessions.revoke')}
            </Button>
          </span>
        ),
      },
    ],
    [ask, t],
  );
  return (
    <Section title={t('grants.title')} id="user-grants">
      <DataTable
        caption={t('grants.caption')}
        hideCaption
        columns={columns}
        data={grants.data?.grants}
        loading={grants.isFetching}
        error={grants.error}
        emptyTitle={t('grants.none')}
        getRowId={(g) => g.clientID}
      />
      <ConfirmDialog title={t('grants.revokeTitle', { app: revoking.item?.clientName || revoking.item?.clientID || t('grants.thisApp') })} confirmLabel={t('grants.revokeAccess')} danger {...revoking.dialog}>
        <p>{t('grants.revokeBody', { who })}</p>
      </ConfirmDialog>
    </Section>
  );
}
