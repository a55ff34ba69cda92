import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { AppLogo } from '../signin/AppLogo';
import { scopeWordsOrNames } from '../signin/interaction';
import { Button, ConfirmDialog, EmptyState, ErrorMessage, Loading, Section, useConfirmedRemoval, useToast } from '../ui';
import { accountApi, day, type AppGrant } from './accountApi';

/** One app with access: who it is, whose it is, what it can see, since when and until when; revoking it. */
function AppItem({ grant, onRevoke }: { grant: AppGrant; onRevoke: (grant: AppGrant) => void }) {
  const { t } = useTranslation('account');
  const access = scopeWordsOrNames(grant.scopes);
  return (
    <li>
      <div className="item-main app-head">
        <AppLogo uri={grant.logoURI} name={grant.clientName} />
        <div>
          <p>
            <strong>{grant.clientName}</strong> <span className={grant.firstParty ? 'badge badge-ok' : 'badge'}>{grant.firstParty ? t('apps.builtIn') : t('apps.thirdParty')}</span>
          </p>
          {access.length > 0 ? <p>{t('apps.canSee', { what: access.join('; ') })}</p> : null}
          {grant.claims.length > 0 ? <p>{t('apps.also', { claims: grant.claims.join(', ') })}</p> : null}
          <p className="muted">{t('apps.given', { given: day(grant.grantedAt), ends: day(grant.expiresAt) })}</p>
        </div>
      </div>
      <Button variant="danger" onClick={() => onRevoke(grant)} aria-label={t('apps.revokeLabel', { client: grant.clientName })}>{t('apps.revoke')}</Button>
    </li>
  );
}

/**
 * The apps that may use the account through the sector's OpenID Provider (the user's
 * grants): revoking one stops its tokens at once, and a third-party app asks for
 * consent again the next time.
 */
export function AppsSection({ sub }: { sub: string }) {
  const { t } = useTranslation('account');
  const toast = useToast();
  const client = useQueryClient();
  const key = ['account', sub, 'apps'];
  const list = useQuery({ queryKey: key, queryFn: () => accountApi.appGrants(sub) });

  const revoking = useConfirmedRemoval(
    (grant: AppGrant) => accountApi.revokeAppGrant(sub, grant.clientID),
    (_result, grant) => {
      toast(t('apps.revoked', { client: grant.clientName }));
      void client.invalidateQueries({ queryKey: key });
    },
  );

  return (
    <Section title={t('parts.apps')} id="apps">
      {list.isPending ? <Loading /> : list.isError ? <ErrorMessage error={list.error} /> : list.data.grants.length === 0 ? (
        <EmptyState title={t('apps.none')} />
      ) : (
        <ul className="item-list" aria-label={t('apps.list')}>
          {list.data.grants.map((grant) => (
            <AppItem key={grant.clientID} grant={grant} onRevoke={revoking.ask} />
          ))}
        </ul>
      )}
      <ConfirmDialog title={t('apps.revokeTitle', { client: revoking.item?.clientName ?? t('apps.thisApp') })} confirmLabel={t('apps.revoke')} danger {...revoking.dialog}>
        <p>
          {t('apps.revokeBody', { client: revoking.item?.clientName ?? t('apps.theApp') })}
          {revoking.item && !revoking.item.firstParty ? t('apps.asksAgain') : ''}
        </p>
      </ConfirmDialog>
    </Section>
  );
}
