import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useMemo } from 'react';
import { accountApi, type Identity } from '../../account/accountApi';
import { useStepUp } from '../../account/StepUp';
import { Button, ConfirmDialog, DataTable, Section, useConfirmedRemoval, useToast, type ColumnDef } from '../../ui';
import { formatTime } from '../util';

const PROVIDER_NAMES: Record<Identity['provider'], string> = { google: 'Google', github: 'GitHub', apple: 'Apple', oidc: 'OpenID Connect' };

/**
 * The social accounts linked to a user (GET /users/{sub}/identities), each unlinked
 * after a confirmation (DELETE /users/{sub}/identities/{id}). Linking needs the user at
 * the provider, so only the user does it, from their account page.
 */
export function UserIdentities({ sub, who }: { sub: string; who: string }) {
  const toast = useToast();
  const queryClient = useQueryClient();
  const withStepUp = useStepUp();
  const identities = useQuery({ queryKey: ['user-identities', sub], queryFn: () => accountApi.identities(sub) });
  const unlinking = useConfirmedRemoval(
    (i: Identity) => withStepUp(() => accountApi.unlink(sub, i.id)),
    (_res, i) => {
      toast(`${PROVIDER_NAMES[i.provider]} account unlinked from ${who}.`);
      void queryClient.invalidateQueries({ queryKey: ['user-identities', sub] });
    },
  );
  const ask = unlinking.ask;
  const columns = useMemo<Array<ColumnDef<Identity>>>(
    () => [
      { id: 'provider', header: 'Provider', cell: ({ row }) => PROVIDER_NAMES[row.original.provider] },
      { id: 'email', header: 'Account', cell: ({ row }) => <span className="wrap-anywhere">{row.original.email || row.original.subject}</span> },
      { id: 'created', header: 'Linked', cell: ({ row }) => formatTime(row.original.createdAt) },
      { id: 'used', header: 'Last used', cell: ({ row }) => formatTime(row.original.lastUsedAt) },
      {
        id: 'actions',
        header: 'Actions',
        cell: ({ row }) => (
          <span className="row-actions">
            <Button variant="danger" onClick={() => ask(row.original)} aria-label={`Unlink ${PROVIDER_NAMES[row.original.provider]} ${row.original.email || row.original.subject}`}>
              Unlink
            </Button>
          </span>
        ),
      },
    ],
    [ask],
  );
  return (
    <Section title="Linked accounts" id="user-identities">
      <DataTable
        caption="Social accounts linked to this user"
        hideCaption
        columns={columns}
        data={identities.data?.identities}
        loading={identities.isFetching}
        error={identities.error}
        emptyTitle="No linked social accounts."
        getRowId={(i) => i.id}
      />
      <ConfirmDialog title={`Unlink the ${unlinking.item ? PROVIDER_NAMES[unlinking.item.provider] : ''} account?`} confirmLabel="Unlink" danger {...unlinking.dialog}>
        <p>
          {who} can no longer sign in with {unlinking.item?.email || 'that account'}. The service refuses it when that account is their only way to sign in.
        </p>
      </ConfirmDialog>
    </Section>
  );
}
