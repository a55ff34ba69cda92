import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useMemo } from 'react';
import { accountApi, type AppGrant, type Session } from '../../account/accountApi';
import { Button, ConfirmDialog, DataTable, Section, useConfirmedRemoval, useToast, type ColumnDef } from '../../ui';
import { formatDateTime, formatTime } from '../util';

/**
 * Where a user is signed in (GET /users/{sub}/sessions, times in the browser's local
 * time), each session revoked after a confirmation (DELETE /users/{sub}/sessions/{id}):
 * it ends at once.
 */
export function UserSessions({ sub, who }: { sub: string; who: string }) {
  const toast = useToast();
  const queryClient = useQueryClient();
  const sessions = useQuery({ queryKey: ['user-sessions', sub], queryFn: () => accountApi.sessions(sub) });
  const revoking = useConfirmedRemoval(
    (s: Session) => accountApi.revokeSession(sub, s.id),
    () => {
      toast(`Session of ${who} revoked.`);
      void queryClient.invalidateQueries({ queryKey: ['user-sessions', sub] });
    },
  );
  const ask = revoking.ask;
  const columns = useMemo<Array<ColumnDef<Session>>>(
    () => [
      { id: 'device', header: 'Device', cell: ({ row }) => <span className="wrap-anywhere">{row.original.userAgent || 'Unknown device'}</span> },
      { id: 'ip', header: 'IP address', cell: ({ row }) => <span className="wrap-anywhere">{row.original.clientIP || '—'}</span> },
      { id: 'created', header: 'Signed in', cell: ({ row }) => formatTime(row.original.createdAt) },
      { id: 'seen', header: 'Last active', cell: ({ row }) => formatTime(row.original.lastSeenAt) },
      { id: 'expires', header: 'Ends', cell: ({ row }) => formatTime(row.original.expiresAt) },
      {
        id: 'actions',
        header: 'Actions',
        cell: ({ row }) => (
          <span className="row-actions">
            <Button variant="danger" onClick={() => ask(row.original)} aria-label={`Revoke the session signed in ${formatTime(row.original.createdAt)}`}>
              Revoke
            </Button>
          </span>
        ),
      },
    ],
    [ask],
  );
  return (
    <Section title="Sessions" id="user-sessions">
      <DataTable
        caption="Sessions of this user"
        hideCaption
        columns={columns}
        data={sessions.data?.sessions}
        loading={sessions.isFetching}
        error={sessions.error}
        emptyTitle="Not signed in anywhere."
        getRowId={(s) => s.id}
      />
      <ConfirmDialog title="Revoke this session?" confirmLabel="Revoke session" danger {...revoking.dialog}>
        <p>
          The session of {who} on {revoking.item?.userAgent || 'that device'} ends at once; signing in again starts a new one.
        </p>
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
  const toast = useToast();
  const queryClient = useQueryClient();
  const grants = useQuery({ queryKey: ['user-grants', sub], queryFn: () => accountApi.appGrants(sub) });
  const revoking = useConfirmedRemoval(
    (g: AppGrant) => accountApi.revokeAppGrant(sub, g.clientID),
    (_res, g) => {
      toast(`Access of ${g.clientName || g.clientID} for ${who} revoked.`);
      void queryClient.invalidateQueries({ queryKey: ['user-grants', sub] });
    },
  );
  const ask = revoking.ask;
  const columns = useMemo<Array<ColumnDef<AppGrant>>>(
    () => [
      {
        id: 'app',
        header: 'App',
        cell: ({ row }) => (
          <span className="wrap-anywhere">
            {row.original.clientName || row.original.clientID}
            {row.original.firstParty ? <span className="badge"> first-party</span> : null}
          </span>
        ),
      },
      { id: 'scopes', header: 'Scopes', cell: ({ row }) => <span className="wrap-anywhere">{[...row.original.scopes, ...row.original.claims].join(' ')}</span> },
      { id: 'granted', header: 'Granted', cell: ({ row }) => formatDateTime(row.original.grantedAt) },
      { id: 'expires', header: 'Lapses', cell: ({ row }) => formatDateTime(row.original.expiresAt) },
      {
        id: 'actions',
        header: 'Actions',
        cell: ({ row }) => (
          <span className="row-actions">
            <Button variant="danger" onClick={() => ask(row.original)} aria-label={`Revoke access of ${row.original.clientName || row.original.clientID}`}>
              Revoke
            </Button>
          </span>
        ),
      },
    ],
    [ask],
  );
  return (
    <Section title="App access" id="user-grants">
      <DataTable
        caption="Apps this user gave access to"
        hideCaption
        columns={columns}
        data={grants.data?.grants}
        loading={grants.isFetching}
        error={grants.error}
        emptyTitle="No app has access."
        getRowId={(g) => g.clientID}
      />
      <ConfirmDialog title={`Revoke the access of ${revoking.item?.clientName || revoking.item?.clientID || 'this app'}?`} confirmLabel="Revoke access" danger {...revoking.dialog}>
        <p>The app’s tokens for {who} stop working at once; the app asks for consent again at the next sign-in (an app of the sector’s own does not ask).</p>
      </ConfirmDialog>
    </Section>
  );
}
