import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useEffectEvent, useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { useTranslation } from 'react-i18next';
import { i18n } from '../i18n';
import { signInPath, useAuth } from '../auth/AuthContext';
import { FLOW_PARAM, newSocialFlow, takeSocialFlow } from '../signin/flow';
import { PublicShell } from '../signin/PublicShell';
import { Button, ConfirmDialog, EmptyState, ErrorMessage, Loading, Section, useAsyncAction, useConfirmedRemoval, useToast } from '../ui';
import { accountApi, when, type Identity } from './accountApi';
import { useStepUp } from './StepUp';
import { absolutePath } from '../auth/sectorAddress';
import { sectorSignInOptions } from '../auth/signInOptions';

/** The providers an account can be linked with. */
const PROVIDERS = new Set(['google', 'github', 'apple', 'oidc']);

/** A provider's name in words (an unknown one keeps its own). */
const providerName = (provider: string): string => (PROVIDERS.has(provider) ? i18n.t(`account:linked.provider.${provider}`) : provider);

/** Where the provider sends the browser back after a link: a public page (the access token lives in memory and does not survive the trip). */
const LINK_RETURN_PATH = '/account/linked';

/**
 * Social accounts linked to this user: list, unlink (never the last way in; the
 * API says so), and link a provider the sector offers that is not linked yet
 * (a recent sign-in or the password first; the return is LinkReturnPage).
 */
export function LinkedSection({ sub }: { sub: string }) {
  const { t } = useTranslation('account');
  const toast = useToast();
  const client = useQueryClient();
  const { me } = useAuth();
  const withStepUp = useStepUp();
  const key = ['account', sub, 'identities'];
  const list = useQuery({ queryKey: key, queryFn: () => accountApi.identities(sub) });
  const sector = me?.sectorID ?? '';
  const options = useQuery(sectorSignInOptions(client, sector));
  const linking = useAsyncAction();
  const unlinking = useConfirmedRemoval((i: Identity) => accountApi.unlink(sub, i.id), () => {
    toast(t('linked.unlinked'));
    void client.invalidateQueries({ queryKey: key });
  });
  const label = (i: Identity) => providerName(i.provider);
  const linked = new Set<string>((list.data?.identities ?? []).map((i) => i.provider));
  const linkable = (options.data?.providers ?? []).filter((p) => PROVIDERS.has(p) && !linked.has(p));

  const link = (provider: string) =>
    linking.run(async () => {
      const back = new URL(absolutePath(LINK_RETURN_PATH), window.location.origin);
      if (sector) back.searchParams.set('sector', sector);
      const flow = newSocialFlow(back);
      const start = await withStepUp(() => accountApi.startLink(sub, provider, flow.redirectURI));
      flow.remember('link', start);
      window.location.assign(start.authURL);
    }, provider);

  return (
    <Section title={t('parts.linked')} id="linked">
      {list.isPending ? <Loading /> : list.isError ? <ErrorMessage error={list.error} /> : list.data.identities.length === 0 ? (
        <EmptyState title={t('linked.none')}>
          <p>{t('linked.noneBody')}</p>
        </EmptyState>
      ) : (
        <ul className="item-list" aria-label={t('linked.list')}>
          {list.data.identities.map((i) => (
            <li key={i.id}>
              <div className="item-main">
                <p><strong>{label(i)}</strong> {i.email}</p>
                <p className="muted">{t('linked.linkedUsed', { linked: when(i.createdAt), used: when(i.lastUsedAt) })}</p>
              </div>
              <Button variant="danger" onClick={() => unlinking.ask(i)} aria-label={t('linked.unlinkLabel', { provider: label(i), email: i.email })}>{t('linked.unlink')}</Button>
            </li>
          ))}
        </ul>
      )}
      {linkable.length > 0 ? (
        <div className="actions">
          {linkable.map((p) => (
            <Button key={p} busy={linking.busyWith === p} onClick={() => void link(p)}>{t('linked.link', { provider: providerName(p) })}</Button>
          ))}
        </div>
      ) : null}
      {linking.error ? <ErrorMessage error={linking.error} /> : null}
      <ConfirmDialog
        title={t('linked.unlinkTitle')}
        confirmLabel={t('linked.unlink')}
        danger
        {...unlinking.dialog}
      >
        <p>{t('linked.unlinkBody', { provider: unlinking.item ? label(unlinking.item) : '', email: unlinking.item?.email ?? '' })}</p>
      </ConfirmDialog>
    </Section>
  );
}

/** Link returns already handled (each works once; React may mount a page twice in development). */
const handled = new Set<string>();

/**
 * The return from linking a provider (`?flow=…&code=…`, or `error=…`): only for
 * a link this tab started, whose stored verifier goes with the code; anything
 * else is refused and nothing is linked. Then the user signs in again (the
 * access token did not survive the trip to the provider).
 */
export function LinkReturnPage() {
  const { t } = useTranslation('account');
  const [params, setParams] = useSearchParams();
  const sector = params.get('sector');
  const flowId = params.get(FLOW_PARAM);
  const code = params.get('code');
  const failure = params.get('error');
  const returnKey = flowId !== null || code !== null || failure !== null ? `${flowId}|${code}|${failure}` : null;
  const action = useAsyncAction();
  const [done, setDone] = useState<Identity | null>(null);

  const handle = useEffectEvent((key: string) => {
    if (handled.has(key)) return;
    handled.add(key);
    const cleaned = new URLSearchParams(params);
    for (const name of [FLOW_PARAM, 'code', 'error']) cleaned.delete(name);
    setParams(cleaned, { replace: true });
    const flow = takeSocialFlow(flowId, 'link');
    if (!flow) return void action.setError(new Error(t('linked.foreign')));
    if (failure) return void action.setError(new Error(failure === 'IDENTITY_ALREADY_LINKED' ? t('linked.elsewhere') : t('linked.failed', { reason: failure })));
    if (code) void action.run(async () => setDone((await accountApi.collectLink(code, flow.verifier)).identity));
  });
  useEffect(() => {
    // Synchronizes with the service (a one-time exchange).
    if (returnKey) handle(returnKey);
  }, [returnKey]);

  return (
    <PublicShell title={t('linked.returnTitle')} area="account">
      {action.busy ? <Loading /> : null}
      {done ? <p role="status">{t('linked.done', { provider: providerName(done.provider), email: done.email })}</p> : null}
      {action.error ? <ErrorMessage error={action.error} /> : null}
      <p><Link to={signInPath('account', { sector, next: '/account' })}>{t('linked.signIn')}</Link></p>
    </PublicShell>
  );
}
