import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Button, ConfirmDialog, EmptyState, ErrorMessage, Loading, Section, useConfirmedRemoval, useToast } from '../ui';
import { accountApi, when, type Identity } from './accountApi';

const PROVIDERS: Record<string, string> = { google: 'Google', github: 'GitHub', apple: 'Apple', oidc: 'Single sign-on' };

/** Social accounts linked to this user: list and unlink (never the last way in; the API says so). */
export function LinkedSection({ sub }: { sub: string }) {
  const toast = useToast();
  const client = useQueryClient();
  const key = ['account', sub, 'identities'];
  const list = useQuery({ queryKey: key, queryFn: () => accountApi.identities(sub) });
  const unlinking = useConfirmedRemoval((i: Identity) => accountApi.unlink(sub, i.id), () => {
    toast('Account unlinked.');
    void client.invalidateQueries({ queryKey: key });
  });
  const label = (i: Identity) => PROVIDERS[i.provider] ?? i.provider;
  return (
    <Section title="Linked accounts" id="linked">
      {list.isPending ? <Loading /> : list.isError ? <ErrorMessage error={list.error} /> : list.data.identities.length === 0 ? (
        <EmptyState title="No linked accounts">
          <p>Accounts you sign in with (Google, GitHub, Apple, single sign-on) appear here.</p>
        </EmptyState>
      ) : (
        <ul className="item-list" aria-label="Your linked accounts">
          {list.data.identities.map((i) => (
            <li key={i.id}>
              <div className="item-main">
                <p><strong>{label(i)}</strong> {i.email}</p>
                <p className="muted">Linked {when(i.createdAt)} · last used {when(i.lastUsedAt)}</p>
              </div>
              <Button variant="danger" onClick={() => unlinking.ask(i)} aria-label={`Unlink ${label(i)} ${i.email}`}>Unlink</Button>
            </li>
          ))}
        </ul>
      )}
      <ConfirmDialog
        title="Unlink this account?"
        confirmLabel="Unlink"
        danger
        {...unlinking.dialog}
      >
        <p>You will no longer be able to sign in with {unlinking.item ? label(unlinking.item) : ''} {unlinking.item?.email}.</p>
      </ConfirmDialog>
    </Section>
  );
}
