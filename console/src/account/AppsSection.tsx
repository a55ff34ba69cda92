import { useQuery, useQueryClient } from '@tanstack/react-query';
import { AppLogo } from '../signin/AppLogo';
import { scopeWordsOrNames } from '../signin/interaction';
import { Button, ConfirmDialog, EmptyState, ErrorMessage, Loading, Section, useConfirmedRemoval, useToast } from '../ui';
import { accountApi, day, type AppGrant } from './accountApi';

/** One app with access: who it is, whose it is, what it can see, since when and until when; revoking it. */
function AppItem({ grant, onRevoke }: { grant: AppGrant; onRevoke: (grant: AppGrant) => void }) {
  const access = scopeWordsOrNames(grant.scopes);
  return (
    <li>
      <div className="item-main app-head">
        <AppLogo uri={grant.logoURI} name={grant.clientName} />
        <div>
          <p>
            <strong>{grant.clientName}</strong> <span className={grant.firstParty ? 'badge badge-ok' : 'badge'}>{grant.firstParty ? 'Built-in app' : 'Third-party app'}</span>
          </p>
          {access.length > 0 ? <p>Can see {access.join('; ')}.</p> : null}
          {grant.claims.length > 0 ? <p>Also: {grant.claims.join(', ')}.</p> : null}
          <p className="muted">Access given {day(grant.grantedAt)} · ends {day(grant.expiresAt)} unless the app is used again</p>
        </div>
      </div>
      <Button variant="danger" onClick={() => onRevoke(grant)} aria-label={`Revoke access of ${grant.clientName}`}>Revoke access</Button>
    </li>
  );
}

/**
 * The apps that may use the account through the sector's OpenID Provider (the user's
 * grants): revoking one stops its tokens at once, and a third-party app asks for
 * consent again the next time.
 */
export function AppsSection({ sub }: { sub: string }) {
  const toast = useToast();
  const client = useQueryClient();
  const key = ['account', sub, 'apps'];
  const list = useQuery({ queryKey: key, queryFn: () => accountApi.appGrants(sub) });

  const revoking = useConfirmedRemoval(
    (grant: AppGrant) => accountApi.revokeAppGrant(sub, grant.clientID),
    (_result, grant) => {
      toast(`${grant.clientName} can no longer access your account.`);
      void client.invalidateQueries({ queryKey: key });
    },
  );

  return (
    <Section title="Apps" id="apps">
      {list.isPending ? <Loading /> : list.isError ? <ErrorMessage error={list.error} /> : list.data.grants.length === 0 ? (
        <EmptyState title="You have not given any app access to your account." />
      ) : (
        <ul className="item-list" aria-label="Apps with access to your account">
          {list.data.grants.map((grant) => (
            <AppItem key={grant.clientID} grant={grant} onRevoke={revoking.ask} />
          ))}
        </ul>
      )}
      <ConfirmDialog title={`Revoke the access of ${revoking.item?.clientName ?? 'this app'}?`} confirmLabel="Revoke access" danger {...revoking.dialog}>
        <p>
          {revoking.item?.clientName ?? 'The app'} can no longer use your account: its access ends at once.
          {revoking.item && !revoking.item.firstParty ? ' If you sign in to it again, it asks for your permission again.' : ''}
        </p>
      </ConfirmDialog>
    </Section>
  );
}
