import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useMemo } from 'react';
import { useTranslation } from 'react-i18next';
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
  const { t } = useTranslation('users');
  const toast = useToast();
  const queryClient = useQueryClient();
  const withStepUp = useStepUp();
  const identities = useQuery({ queryKey: ['user-identities', sub], queryFn: () => accountApi.identities(sub) });
  const unlinking = useConfirmedRemoval(
    (i: Identity) => withStepUp(() => accountApi.unlink(sub, i.id)),
    (_res, i) => {
      toast(t('identities.unlinked', { provider: PROVIDER_NAMES[i.provider], who }));
      void queryClient.invalidateQueries({ queryKey: ['user-identities', sub] });
    },
  );
  const ask = unlinking.ask;
  const columns = useMemo<Array<ColumnDef<Identity>>>(
    () => [
      { id: 'provider', header: t('identities.provider'), cell: ({ row }) => PROVIDER_NAMES[row.original.provider] },
      { id: 'email', header: t('identities.account'), cell: ({ row }) => <span className="wrap-anywhere">{row.original.email || row.original.subject}</span> },
      { id: 'created', header: t('identities.linked'), cell: ({ row }) => formatTime(row.original.createdAt) },
      { id: 'used', header: t('factors.lastUsed'), cell: ({ row }) => formatTime(row.original.lastUsedAt) },
      {
        id: 'actions',
        header: t('list.actions'),
        cell: ({ row }) => (
          <span className="row-actions">
            <Button variant="danger" onClick={() => ask(row.original)} aria-label={t('identities.unlinkLabel', { provider: PROVIDER_NAMES[row.original.provider], account: row.original.email || row.original.subject })}>
              {t('identities.unlink')}
            </Button>
          </span>
        ),
      },
    ],
    [ask, t],
  );
  return (
    <Section title={t('identities.title')} id="user-identities">
      <DataTable
        caption={t('identities.caption')}
        hideCaption
        columns={columns}
        data={identities.data?.identities}
        loading={identities.isFetching}
        error={identities.error}
        emptyTitle={t('identities.none')}
        getRowId={(i) => i.id}
      />
      <ConfirmDialog title={t('identities.unlinkTitle', { provider: unlinking.item ? PROVIDER_NAMES[unlinking.item.provider] : '' })} confirmLabel={t('identities.unlink')} danger {...unlinking.dialog}>
        <p>{t('identities.unlinkBody', { who, account: unlinking.item?.email || t('identities.thatAccount') })}</p>
      </ConfirmDialog>
    </Section>
  );
}
